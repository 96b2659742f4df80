/**
 * Fixture scaffolds: complete rollout folders, in BenchFlow's real layout, for the situations the
 * evidence rules judge. The server makes the files; the extension and the CLI write them. The requests
 * that ask for them are in protocol.ts.
 */
import type { RolloutVerdict } from './rollouts';

/** What the rules say of one scenario's rollout, so the pick list can promise it. */
export interface ScenarioSummary {
  readonly id: string;
  readonly label: string;
  /** One line: what the rollout demonstrates. */
  readonly description: string;
  readonly verdict: RolloutVerdict;
  /** The rule codes it is expected to get, each once, in the order of the README's table. */
  readonly codes: readonly string[];
  /** Settings (under `rolloutEvidence.`) that must be on for the rules to judge it as named. */
  readonly requiredSettings: readonly ('allowOracleWithoutLlm' | 'allowNativeSubscriptionWithoutLlm')[];
  /** The file, relative to the rollout folder, that shows the scenario's point; opened after writing. */
  readonly focusFile: string;
}

/**
 * The file New Fixture Bundle writes at the root of every bundle it makes, and by which the server and
 * the CLI know the bundle for a fixture wherever it lies: records authored there count as evidence. A
 * real BenchFlow rollout never has it.
 */
export const fixtureMarkerFile = 'rollout-evidence-fixture.json';

export interface ScaffoldFile {
  /** Relative to the rollout folder, with `/` separators. */
  readonly path: string;
  readonly content: string;
}

export interface ScaffoldFiles {
  readonly files: readonly ScaffoldFile[];
  readonly focusFile: string;
}

/** BenchFlow names a rollout `<task directory>__<8 hex characters>`, e.g. `regex-log__bab1cbf6`. */
const benchflowRolloutName = /^(.+)__[0-9a-f]{8}$/;

/** A name that is one folder on every platform: no separators, no `..`, nothing a shell or Windows minds. */
const safeSegment = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const maxRolloutNameLength = 120;

/** Why `name` cannot name a rollout folder, or undefined when it can: the input box, the server and the CLI say the same. */
/** CON, NUL, COM1… with or without an extension: Windows reserves them in every folder. */
const windowsDeviceName = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

export function rolloutNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'the rollout name must be text';
  if (name === '') return 'the rollout name is empty';
  if (name.length > maxRolloutNameLength) return `the rollout name is longer than ${maxRolloutNameLength} characters`;
  if (!safeSegment.test(name))
    return 'the rollout name must be one folder name: letters, digits, ".", "_" and "-", starting with a letter or digit';
  if (name.endsWith('.')) return 'the rollout name must not end with "." (Windows drops it)';
  if (windowsDeviceName.test(name)) return `"${name}" is a device name on Windows, where the folder could not be made`;
  return undefined;
}

/** The task a rollout name speaks of: BenchFlow's `<task>__<hex>` prefix, else the whole name. */
export function taskOfRolloutName(name: string): string {
  return benchflowRolloutName.exec(name)?.[1] ?? name;
}

/** A rollout name as BenchFlow makes one; `hex` is 8 random hex characters from the caller. */
export function benchflowStyleRolloutName(task: string, hex: string): string {
  return `${task}__${hex}`;
}
