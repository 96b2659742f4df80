/**
 * The artifact kinds of a BenchFlow rollout bundle, and the file patterns that identify them.
 *
 * One table serves the engine (which schema applies to a file), the client (which documents go to the
 * server) and the manifest (activation and `jsonValidation`, kept equal to this table by a test).
 */

export type ArtifactFormat = 'jsonl' | 'json';

export const artifactKindNames = [
  'acp-trajectory',
  'llm-trajectory',
  'results',
  'rewards',
  'action-records',
  'result',
  'config',
  'preflight',
  'timing',
] as const;

export type ArtifactKind = (typeof artifactKindNames)[number];

export interface ArtifactKindInfo {
  readonly kind: ArtifactKind;
  readonly format: ArtifactFormat;
  /** Globs in the real BenchFlow layout, matched against the whole path. */
  readonly patterns: readonly string[];
  /** File name under `schemas/`. */
  readonly schemaFile: string;
}

export const artifactKinds: readonly ArtifactKindInfo[] = [
  {
    kind: 'acp-trajectory',
    format: 'jsonl',
    patterns: ['**/trajectory/acp_trajectory.jsonl', '**/agent/acp_trajectory.jsonl'],
    schemaFile: 'acp-trajectory-row.schema.json',
  },
  {
    kind: 'llm-trajectory',
    format: 'jsonl',
    patterns: ['**/trajectory/llm_trajectory.jsonl'],
    schemaFile: 'llm-exchange-row.schema.json',
  },
  {
    kind: 'results',
    format: 'jsonl',
    patterns: ['**/results.jsonl'],
    schemaFile: 'results-row.schema.json',
  },
  {
    kind: 'rewards',
    format: 'jsonl',
    patterns: ['**/rewards.jsonl'],
    schemaFile: 'rewards-row.schema.json',
  },
  {
    kind: 'action-records',
    format: 'jsonl',
    patterns: ['**/benchguard/action_records.jsonl'],
    schemaFile: 'action-record.schema.json',
  },
  {
    kind: 'result',
    format: 'json',
    patterns: ['**/result.json'],
    schemaFile: 'result.schema.json',
  },
  {
    kind: 'config',
    format: 'json',
    patterns: ['**/config.json', '**/run_config.json', '**/metadata.json'],
    schemaFile: 'config.schema.json',
  },
  {
    kind: 'preflight',
    format: 'json',
    patterns: ['**/benchguard/preflight.json'],
    schemaFile: 'preflight.schema.json',
  },
  {
    kind: 'timing',
    format: 'json',
    patterns: ['**/timing.json'],
    schemaFile: 'timing.schema.json',
  },
];

export function isArtifactKind(value: unknown): value is ArtifactKind {
  return typeof value === 'string' && (artifactKindNames as readonly string[]).includes(value);
}

export function artifactKindInfo(kind: ArtifactKind): ArtifactKindInfo {
  const info = artifactKinds.find((candidate) => candidate.kind === kind);
  if (!info) throw new Error(`unknown artifact kind ${kind}`);
  return info;
}

/**
 * A user pattern without a slash names a file anywhere, as in `files.associations`; with a slash it is
 * matched against the whole path, so it normally starts with `**`.
 */
function normalizeArtifactGlob(pattern: string): string {
  const forward = pattern.replace(/\\/g, '/');
  return forward.includes('/') ? forward : `**/${forward}`;
}

export interface ArtifactPattern {
  /** Matched against the whole path, with forward slashes. */
  readonly glob: string;
  readonly kind: ArtifactKind;
}

/**
 * Every pattern that makes a file an artifact, in the order they are tried: the user's own first, so
 * that they can claim a file the built-in BenchFlow layout would give another kind, then the layout's.
 */
export function artifactPatterns(userPatterns: Readonly<Record<string, ArtifactKind>>): ArtifactPattern[] {
  const user = Object.entries(userPatterns).map(([glob, kind]) => ({ glob: normalizeArtifactGlob(glob), kind }));
  const builtIn = artifactKinds.flatMap((info) => info.patterns.map((glob) => ({ glob, kind: info.kind })));
  return [...user, ...builtIn];
}

/**
 * The file names of the verifier's reward, in a rollout's `verifier/` folder. They have no schema, so
 * they are not artifacts, but the rules read them and their changes on disk change the verdict.
 */
export const verifierRewardFiles = { text: 'reward.txt', json: 'reward.json' } as const;
