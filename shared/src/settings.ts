/**
 * The `rolloutEvidence.*` settings as the server reads them. The manifest declares the same keys for the
 * settings UI; a test keeps the two in step.
 */
import { ArtifactKind, isArtifactKind } from './layout';
import { isJsonObject } from './jsonObject';

export const settingsSection = 'rolloutEvidence';

export interface RolloutEvidenceSettings {
  /** Extra glob → artifact kind associations, consulted before the built-in BenchFlow layout. */
  readonly artifacts: Readonly<Record<string, ArtifactKind>>;
  /** Problems reported per file before the rest are summarised in one notice. */
  readonly maxNumberOfProblems: number;
  /**
   * Outline symbols and folding regions computed per file, as VS Code's JSON support limits them
   * (`json.maxItemsComputed`): the outline of a 300,000-record file is a message of tens of megabytes
   * that no one reads; beyond the limit, one last symbol says how many were left out.
   */
  readonly maxItemsComputed: number;
  /** As the experiment-review validator's --allow-oracle-without-llm. */
  readonly allowOracleWithoutLlm: boolean;
  /** As the experiment-review validator's --allow-native-subscription-without-llm. */
  readonly allowNativeSubscriptionWithoutLlm: boolean;
  /** Inlay hints with the time since the rollout started, after each timestamp (off by default: noisy). */
  readonly elapsedTimeHints: boolean;
  /**
   * `probe.trustedWorkspace`: for an editor that does not tell the server whether the user trusts the
   * workspace (VS Code does), the user's opt-in to the probe, which runs commands as root.
   */
  readonly probeTrustedWorkspace: boolean;
  /**
   * Globs of the folders that hold fixture bundles: there, records authored by a quick fix or the
   * scaffold count as evidence, and the quick fixes that write evidence are offered. Nowhere else.
   */
  readonly fixtureFolders: readonly string[];
}

/** Where projects keep test fixtures; the CLI's --fixture-folders has the same default. */
export const defaultFixtureFolders: readonly string[] = ['**/test/fixtures/**', '**/tests/fixtures/**'];

export const defaultSettings: RolloutEvidenceSettings = {
  artifacts: {},
  maxNumberOfProblems: 1000,
  maxItemsComputed: 5000,
  allowOracleWithoutLlm: false,
  allowNativeSubscriptionWithoutLlm: false,
  elapsedTimeHints: false,
  probeTrustedWorkspace: false,
  fixtureFolders: defaultFixtureFolders,
};

/**
 * Read by the client alone: under `rolloutEvidence`, a validation slower than this many milliseconds
 * turns the language status item into a warning, as ESLint's time budget does.
 */
export const timeBudgetSetting = 'timeBudget.validationMs';
export const defaultTimeBudgetMs = 2000;

/**
 * Read by the client alone, which passes it with the request: under `rolloutEvidence`, how many rollouts
 * "Show Problems of All Rollouts" shows the problems of; the rest are counted in a notice.
 */
export const workspaceProblemsMaxRolloutsSetting = 'workspaceProblems.maxRollouts';
export const defaultWorkspaceProblemsMaxRollouts = 100;

export interface SettingsProblem {
  readonly setting: string;
  readonly message: string;
}

/**
 * Settings arrive as untyped JSON from the user's files. Keep what is well formed, fall back to the
 * default for the rest, and say what was ignored so the user can fix it.
 */
export function sanitizeSettings(raw: unknown): { settings: RolloutEvidenceSettings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const source = isJsonObject(raw) ? raw : {};

  const wholeNumber = (name: 'maxNumberOfProblems' | 'maxItemsComputed'): number => {
    const value = source[name];
    if (value === undefined || value === null) return defaultSettings[name];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return value;
    problems.push({
      setting: `${settingsSection}.${name}`,
      message: `expected a whole number of at least 1, found ${JSON.stringify(value)}; using ${defaultSettings[name]}`,
    });
    return defaultSettings[name];
  };
  const maxNumberOfProblems = wholeNumber('maxNumberOfProblems');
  const maxItemsComputed = wholeNumber('maxItemsComputed');

  const artifacts: Record<string, ArtifactKind> = Object.create(null);
  const rawArtifacts = source['artifacts'];
  if (isJsonObject(rawArtifacts)) {
    for (const [pattern, kind] of Object.entries(rawArtifacts)) {
      if (pattern.trim() === '') {
        problems.push({ setting: `${settingsSection}.artifacts`, message: 'an empty pattern was ignored' });
      } else if (isArtifactKind(kind)) {
        artifacts[pattern] = kind;
      } else {
        problems.push({
          setting: `${settingsSection}.artifacts`,
          message: `pattern ${JSON.stringify(pattern)} maps to ${JSON.stringify(kind)}, which is not an artifact kind; ignored`,
        });
      }
    }
  } else if (rawArtifacts !== undefined && rawArtifacts !== null) {
    problems.push({ setting: `${settingsSection}.artifacts`, message: 'expected an object of glob → kind; ignored' });
  }

  let fixtureFolders = defaultSettings.fixtureFolders;
  const rawFixtureFolders = source['fixtureFolders'];
  if (rawFixtureFolders !== undefined && rawFixtureFolders !== null) {
    if (
      Array.isArray(rawFixtureFolders) &&
      rawFixtureFolders.every((glob) => typeof glob === 'string' && glob.trim() !== '')
    ) {
      fixtureFolders = rawFixtureFolders as string[];
    } else {
      problems.push({
        setting: `${settingsSection}.fixtureFolders`,
        message: `expected a list of non-empty globs, found ${JSON.stringify(rawFixtureFolders)}; using ${JSON.stringify(defaultSettings.fixtureFolders)}`,
      });
    }
  }

  const flag = (
    name: 'allowOracleWithoutLlm' | 'allowNativeSubscriptionWithoutLlm' | 'elapsedTimeHints' | 'probeTrustedWorkspace',
    key: string,
    value: unknown,
  ): boolean => {
    if (value === undefined || value === null) return defaultSettings[name];
    if (typeof value === 'boolean') return value;
    problems.push({
      setting: `${settingsSection}.${key}`,
      message: `expected true or false, found ${JSON.stringify(value)}; using ${defaultSettings[name]}`,
    });
    return defaultSettings[name];
  };
  const inlayHints = source['inlayHints'];
  const probe = source['probe'];

  return {
    settings: {
      artifacts,
      maxNumberOfProblems,
      maxItemsComputed,
      allowOracleWithoutLlm: flag('allowOracleWithoutLlm', 'allowOracleWithoutLlm', source['allowOracleWithoutLlm']),
      allowNativeSubscriptionWithoutLlm: flag(
        'allowNativeSubscriptionWithoutLlm',
        'allowNativeSubscriptionWithoutLlm',
        source['allowNativeSubscriptionWithoutLlm'],
      ),
      elapsedTimeHints: flag(
        'elapsedTimeHints',
        'inlayHints.elapsedTime',
        isJsonObject(inlayHints) ? inlayHints['elapsedTime'] : undefined,
      ),
      probeTrustedWorkspace: flag(
        'probeTrustedWorkspace',
        'probe.trustedWorkspace',
        isJsonObject(probe) ? probe['trustedWorkspace'] : undefined,
      ),
      fixtureFolders,
    },
    problems,
  };
}
