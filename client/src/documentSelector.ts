/**
 * Which documents the language server sees: the artifact files by pattern (never every JSON file in the
 * workspace), plus the user's own `rolloutEvidence.artifacts` patterns.
 */
import { artifactKinds, normalizeArtifactGlob } from '../../shared/src/artifactKinds';
import type { RolloutEvidenceSettings } from '../../shared/src/settings';

export function artifactPatterns(settings: RolloutEvidenceSettings): string[] {
  const builtIn = artifactKinds.flatMap((info) => info.patterns);
  const user = Object.keys(settings.artifacts).map(normalizeArtifactGlob);
  return [...new Set([...user, ...builtIn])];
}

/** Plain filters, which both the VS Code API and the language client accept. */
export type ArtifactDocumentSelector = { readonly scheme: 'file'; readonly pattern: string }[];

export function documentSelector(settings: RolloutEvidenceSettings): ArtifactDocumentSelector {
  return artifactPatterns(settings).map((pattern) => ({ scheme: 'file', pattern }));
}

/**
 * Files whose changes on disk change a rollout's evidence: the artifacts and the verifier's reward
 * files. The server is told of them even when they are not open, so a run still writing updates.
 */
export function watchedFilesPattern(settings: RolloutEvidenceSettings): string {
  const names = new Set(artifactPatterns(settings).map((pattern) => pattern.slice(pattern.lastIndexOf('/') + 1)));
  for (const name of ['reward.txt', 'reward.json']) names.add(name);
  return `**/{${[...names].join(',')}}`;
}
