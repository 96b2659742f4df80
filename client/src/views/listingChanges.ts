/**
 * Which file changes can change the Rollouts view's listing, so that a workspace busy writing other
 * JSON (build output, an agent's own files) does not make the server walk the workspace again.
 */
import { basename, dirname, relative, sep } from 'node:path';
import { isInside } from '../../../shared/src/paths';

/** Tool caches and version control never hold rollouts worth a refresh. */
const toolFolders = new Set(['node_modules', '.git']);

/** What the agent collected in a rollout: discovery does not read it, so its writes change nothing. */
const rolloutOutputFolder = 'artifacts';

/**
 * Whether a change at `path` can change the listing of the rollouts at `listedRoots`: a file of a listed
 * rollout's layout (its folder and one level below), or a file named as a rollout's artifacts are, which
 * can make a new rollout.
 */
export function mayChangeListing(path: string, listedRoots: Iterable<string>): boolean {
  if (path.split(sep).some((part) => toolFolders.has(part))) return false;
  for (const root of listedRoots) if (isInside(path, root) && inRolloutLayout(relative(root, path))) return true;
  return namedLikeRolloutArtifact(path);
}

function inRolloutLayout(pathInRollout: string): boolean {
  const parts = pathInRollout === '' ? [] : pathInRollout.split(sep);
  return parts.length <= 1 || (parts.length === 2 && parts[0] !== rolloutOutputFolder);
}

function namedLikeRolloutArtifact(path: string): boolean {
  const name = basename(path);
  const folder = basename(dirname(path));
  return (
    name === 'result.json' ||
    name === 'config.json' ||
    name === 'results.jsonl' ||
    (folder === 'trajectory' && name.endsWith('.jsonl')) ||
    folder === 'benchguard' ||
    (folder === 'verifier' && name.startsWith('reward.'))
  );
}
