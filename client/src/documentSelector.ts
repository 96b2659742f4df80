/**
 * Which documents the language server sees: the artifact files by pattern (never every JSON file in the
 * workspace), plus the user's own `rolloutEvidence.artifacts` patterns.
 */
import { artifactPatterns, verifierRewardFiles } from '../../shared/src/layout';
import type { RolloutEvidenceSettings } from '../../shared/src/settings';

/** The globs of every artifact, as the server's classifier tries them; a glob given twice is kept once. */
function artifactGlobs(settings: RolloutEvidenceSettings): string[] {
  return [...new Set(artifactPatterns(settings.artifacts).map((pattern) => pattern.glob))];
}

/** Plain filters, which both the VS Code API and the language client accept. */
export type ArtifactDocumentSelector = { readonly scheme: 'file'; readonly pattern: string }[];

export function documentSelector(settings: RolloutEvidenceSettings): ArtifactDocumentSelector {
  return artifactGlobs(settings).map((pattern) => ({ scheme: 'file', pattern }));
}

/**
 * Files whose changes on disk change a rollout's evidence: the artifacts and the verifier's reward
 * files. The server is told of them even when they are not open, so a run still writing updates.
 */
export function watchedFilesPattern(settings: RolloutEvidenceSettings): string {
  const names = new Set(artifactGlobs(settings).map((glob) => glob.slice(glob.lastIndexOf('/') + 1)));
  for (const name of Object.values(verifierRewardFiles)) names.add(name);
  return `**/{${[...names].join(',')}}`;
}
