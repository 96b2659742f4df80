/**
 * Settings per resource, asked of the client (`workspace/configuration`) once and cached until the
 * client says they changed. Never global: a folder can configure its own artifact patterns.
 */
import type { ConfigurationItem } from 'vscode-languageserver/node';
import {
  sanitizeSettings,
  settingsSection,
  type RolloutEvidenceSettings,
  type SettingsProblem,
} from '../../../shared/src/settings';

/** Where settings come from: the connection's `workspace` (an interface, so a test can stand in for the client). */
export interface ConfigurationSource {
  getConfiguration(item: ConfigurationItem): Promise<unknown>;
}

/** The cache's key for settings asked without a resource: the workspace's, or the user's. */
const noResource = '';

export class SettingsCache {
  private readonly byResource = new Map<string, Promise<RolloutEvidenceSettings>>();
  private readonly reportedProblems = new Set<string>();

  constructor(
    private readonly configuration: ConfigurationSource,
    /** False for clients without `workspace/configuration`; they may send settings at initialization. */
    private readonly clientProvidesSettings: boolean,
    private readonly initialSettings: unknown,
    private readonly reportProblem: (problem: SettingsProblem) => void,
  ) {}

  /** `resource`: the URI the settings are for; without one, those of the workspace as a whole. */
  get(resource?: string): Promise<RolloutEvidenceSettings> {
    const key = resource ?? noResource;
    let settings = this.byResource.get(key);
    if (!settings) {
      const raw = this.clientProvidesSettings
        ? this.configuration
            .getConfiguration({ ...(resource !== undefined ? { scopeUri: resource } : {}), section: settingsSection })
            .then(
              (value: unknown) => value,
              () => undefined,
            )
        : Promise.resolve(this.initialSettings);
      settings = raw.then((value) => this.sanitize(value));
      this.byResource.set(key, settings);
    }
    return settings;
  }

  evict(resource: string): void {
    this.byResource.delete(resource);
  }

  clear(): void {
    this.byResource.clear();
    this.reportedProblems.clear();
  }

  private sanitize(raw: unknown): RolloutEvidenceSettings {
    const { settings, problems } = sanitizeSettings(raw);
    for (const problem of problems) {
      const key = `${problem.setting}\u0000${problem.message}`;
      if (this.reportedProblems.has(key)) continue;
      this.reportedProblems.add(key);
      this.reportProblem(problem);
    }
    return settings;
  }
}
