/** A rollout on disk found and checked as the CLI does: discovery, then the per-file checks and the rules. */
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { checkBundle, type BundleCheckOptions, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { discoverBundles, type DiscoveredBundle } from '../../server/src/engine/bundle/discover';
import type { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';

/** The built-in BenchFlow layout only: the tests' rollouts use no artifact patterns of their own. */
const classifier = new ArtifactClassifier();

/** The rollout whose folder is `root`. */
export function discoverRollout(root: string): DiscoveredBundle {
  const [bundle] = discoverBundles([root], classifier).bundles;
  if (!bundle) throw new Error(`no rollout found at ${root}`);
  return bundle;
}

export function checkRollout(root: string, checker: ArtifactChecker, options: BundleCheckOptions): CheckedBundle {
  return checkBundle(discoverRollout(root), checker, options);
}
