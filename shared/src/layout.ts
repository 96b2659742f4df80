/**
 * The layout of a BenchFlow (and Harbor) rollout folder, in one place: the files that make a rollout and
 * the role each plays, the test that tells a rollout folder, the folders a walk skips, and the artifact
 * kinds with the file patterns that identify them.
 *
 * One table serves the engine (which schema applies to a file, which file plays a role), the client (which
 * documents go to the server, which changes can change a listing) and the manifest (activation and
 * `jsonValidation`, kept equal to this table by a test). Nothing else spells a rollout's file name:
 * test/unit/layoutNames.test.ts holds the source to that.
 */

/** The folders of a rollout. */
export const rolloutFolders = {
  trajectory: 'trajectory',
  /** The ACP trajectory's other home (README's artifact kinds list both). */
  agent: 'agent',
  benchguard: 'benchguard',
  verifier: 'verifier',
  /** What the agent collected during the run: its output, not evidence, so no walk reads it. */
  agentOutput: 'artifacts',
} as const;

/**
 * The file names of the verifier's reward, in a rollout's `verifier/` folder. They have no schema, so
 * they are not artifacts, but the rules read them and their changes on disk change the verdict.
 */
export const verifierRewardFiles = { text: 'reward.txt', json: 'reward.json' } as const;

/** Each file of the layout, as a path relative to the rollout folder (with `/`). */
export const rolloutFiles = {
  result: 'result.json',
  runConfig: 'run_config.json',
  config: 'config.json',
  metadata: 'metadata.json',
  timing: 'timing.json',
  results: 'results.jsonl',
  rewards: 'rewards.jsonl',
  acpTrajectory: `${rolloutFolders.trajectory}/acp_trajectory.jsonl`,
  agentAcpTrajectory: `${rolloutFolders.agent}/acp_trajectory.jsonl`,
  llmTrajectory: `${rolloutFolders.trajectory}/llm_trajectory.jsonl`,
  actionRecords: `${rolloutFolders.benchguard}/action_records.jsonl`,
  preflight: `${rolloutFolders.benchguard}/preflight.json`,
  rewardText: `${rolloutFolders.verifier}/${verifierRewardFiles.text}`,
  rewardJson: `${rolloutFolders.verifier}/${verifierRewardFiles.json}`,
  /** The verifier's test output: no rule reads it, but a rollout written from scratch has one. */
  testStdout: `${rolloutFolders.verifier}/test-stdout.txt`,
} as const;

/** The roles of the layout, with the files that can play each, in the experiment-review validator's order. */
export const rolloutRoles = {
  result: [rolloutFiles.result],
  config: [rolloutFiles.runConfig, rolloutFiles.config, rolloutFiles.metadata],
  trajectory: [rolloutFiles.acpTrajectory],
  llm: [rolloutFiles.llmTrajectory],
  results: [rolloutFiles.results],
  rewards: [rolloutFiles.rewards],
  actions: [rolloutFiles.actionRecords],
  preflight: [rolloutFiles.preflight],
} as const satisfies Record<string, readonly string[]>;

export type RolloutRole = keyof typeof rolloutRoles;

/**
 * How far below its folder a rollout's files lie: in the folder itself and one level down, as in
 * trajectory/ and benchguard/. A file deeper down belongs to no rollout, so a file's rollout is its own
 * folder or one at most this many folders above it.
 */
export const rolloutLayoutDepth = 1;

/** Folders no walk searches: tool caches and version control never hold rollouts. */
export const skippedFolders: ReadonlySet<string> = new Set(['node_modules', '.git']);

/**
 * Whether one entry of a folder makes that folder a rollout, as BenchFlow's experiment-review validator
 * finds rollouts (a result.json file), or a folder with trajectory/ or benchguard/, since a run that is
 * still going has no result.json yet. `isFolder` is true for a real folder only, never for a link to one:
 * walks never follow linked folders (no cycles), so a linked trajectory/ does not make a rollout.
 */
export function marksRolloutFolder(name: string, isFolder: boolean): boolean {
  if (name === rolloutFiles.result) return !isFolder;
  return isFolder && (name === rolloutFolders.trajectory || name === rolloutFolders.benchguard);
}

/** A glob for a layout file in any rollout, matched against the whole path. */
export function anywhere(relativePath: string): string {
  return `**/${relativePath}`;
}

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
    patterns: [anywhere(rolloutFiles.acpTrajectory), anywhere(rolloutFiles.agentAcpTrajectory)],
    schemaFile: 'acp-trajectory-row.schema.json',
  },
  {
    kind: 'llm-trajectory',
    format: 'jsonl',
    patterns: [anywhere(rolloutFiles.llmTrajectory)],
    schemaFile: 'llm-exchange-row.schema.json',
  },
  {
    kind: 'results',
    format: 'jsonl',
    patterns: [anywhere(rolloutFiles.results)],
    schemaFile: 'results-row.schema.json',
  },
  {
    kind: 'rewards',
    format: 'jsonl',
    patterns: [anywhere(rolloutFiles.rewards)],
    schemaFile: 'rewards-row.schema.json',
  },
  {
    kind: 'action-records',
    format: 'jsonl',
    patterns: [anywhere(rolloutFiles.actionRecords)],
    schemaFile: 'action-record.schema.json',
  },
  {
    kind: 'result',
    format: 'json',
    patterns: [anywhere(rolloutFiles.result)],
    schemaFile: 'result.schema.json',
  },
  {
    kind: 'config',
    format: 'json',
    patterns: [rolloutFiles.config, rolloutFiles.runConfig, rolloutFiles.metadata].map(anywhere),
    schemaFile: 'config.schema.json',
  },
  {
    kind: 'preflight',
    format: 'json',
    patterns: [anywhere(rolloutFiles.preflight)],
    schemaFile: 'preflight.schema.json',
  },
  {
    kind: 'timing',
    format: 'json',
    patterns: [anywhere(rolloutFiles.timing)],
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
