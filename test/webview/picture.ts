/** A rollout on disk read as the language server reads it, and drawn as the timeline request draws it. */
import type { TimelinePicture } from '../../shared/src/timelinePicture';
import { readVerifierReward } from '../../server/src/engine/load';
import { RolloutBundle } from '../../server/src/engine/bundle/rollout';
import type { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { buildTimelinePicture, type PictureOptions } from '../../server/src/engine/picture/buildPicture';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { evaluateRollout } from '../../server/src/engine/rules/evaluate';
import { discoverRollout } from '../support/rollout';

/** `onBuild`: called once the rollout is read and evaluated, just before the picture is built (for timing). */
export function pictureOfRollout(
  root: string,
  checker: ArtifactChecker,
  options: PictureOptions = {},
  onBuild?: () => void,
): TimelinePicture {
  const files = discoverRollout(root).files.map((file) => ({
    ...file,
    report: checker.checkFile(file.path, file.kind, { maxFindings: 1000 }),
  }));
  const bundle = new RolloutBundle(root, files, readVerifierReward(root));
  const evaluation = evaluateRollout(bundle, defaultRuleOptions, new ModelCaches());
  onBuild?.();
  return buildTimelinePicture(bundle, evaluation, options);
}
