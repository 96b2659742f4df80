/**
 * Which file changes can change the Rollouts view's listing, so that a workspace busy writing other
 * JSON (build output, an agent's own files) does not make the server walk the workspace again.
 */
import { basename, dirname, relative, sep } from 'node:path';
import {
  rolloutFiles,
  rolloutFolders,
  rolloutLayoutDepth,
  skippedFolders,
  verifierRewardFiles,
} from '../../../shared/src/layout';
import { isInside } from '../../../shared/src/paths';

/**
 * Whether a change at `path` can change the listing of the rollouts at `listedRoots`: a file of a listed
 * rollout's layout (its folder and one level below), or a file named as a rollout's artifacts are, which
 * can make a new rollout.
 */
export function mayChangeListing(path: string, listedRoots: Iterable<string>): boolean {
  // Tool caches and version control never hold rollouts worth a refresh.
  if (path.split(sep).some((part) => skippedFolders.has(part))) return false;
  for (const root of listedRoots) if (isInside(path, root) && inRolloutLayout(relative(root, path))) return true;
  return namedLikeRolloutArtifact(path);
}

function inRolloutLayout(pathInRollout: string): boolean {
  const parts = pathInRollout === '' ? [] : pathInRollout.split(sep);
  const foldersDown = parts.length - 1;
  // What the agent collected in a rollout: discovery does not read it, so its writes change nothing.
  return (
    foldersDown < rolloutLayoutDepth || (foldersDown === rolloutLayoutDepth && parts[0] !== rolloutFolders.agentOutput)
  );
}

function namedLikeRolloutArtifact(path: string): boolean {
  const name = basename(path);
  const folder = basename(dirname(path));
  return (
    name === rolloutFiles.result ||
    name === rolloutFiles.config ||
    name === rolloutFiles.results ||
    (folder === rolloutFolders.trajectory && name.endsWith('.jsonl')) ||
    folder === rolloutFolders.benchguard ||
    (folder === rolloutFolders.verifier && Object.values<string>(verifierRewardFiles).includes(name))
  );
}
