/**
 * The rollouts under the workspace folders, found once for everything that walks them all (the Rollouts
 * view, the problems of every rollout), and the order in which a bounded walk keeps them.
 */
import { dirname } from 'node:path';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { discoverBundles, DiscoveryUsageError } from '../engine/bundle/discover';
import { compareNames } from '../../../shared/src/order';

/**
 * Rollout folders under the given folders, once each; undefined when cancelled. Discovery only finds the
 * folders: each is evaluated with its own settings. Each folder's walk blocks the server, so between
 * folders it lets the cancellation (and other requests) in.
 */
export async function findRollouts(
  folders: readonly string[],
  isCancelled: () => boolean,
): Promise<{ roots: string[]; ioErrors: string[] } | undefined> {
  const classifier = new ArtifactClassifier({});
  const roots = new Set<string>();
  const ioErrors: string[] = [];
  for (const folder of folders) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (isCancelled()) return undefined;
    try {
      const discovery = discoverBundles([folder], classifier);
      for (const bundle of discovery.bundles) if (!bundle.loose) roots.add(bundle.root);
      ioErrors.push(...discovery.ioErrors);
    } catch (error) {
      if (!(error instanceof DiscoveryUsageError)) throw error;
      ioErrors.push(error.message);
    }
  }
  return { roots: [...roots], ioErrors };
}

/** BenchFlow names job folders by their start time: past a bound, the latest jobs' rollouts are the ones kept. */
export function latestJobsFirst(roots: readonly string[]): string[] {
  return [...roots].sort((a, b) => compareNames(dirname(b), dirname(a)) || compareNames(a, b));
}
