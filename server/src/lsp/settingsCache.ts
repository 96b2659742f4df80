/**
 * Settings per resource, asked of the client (`workspace/configuration`) once and cached until the
 * client says they changed. Never global: a folder can configure its own artifact patterns.
 */
import type { Connection } from 'vscode-languageserver/node';
import { sanitizeSettings, settingsSection, type RolloutEvidenceSettings, type SettingsProblem } from '../../../shared/src/settings';

export class SettingsCache {
  private readonly byResource = new Map<string, Promise<RolloutEvidenceSettings>>();
  private readonly reportedProblems = new Set<string>();

  constructor(
    private readonly connection: Connection,
    /** False for clients without `workspace/configuration`; they may send settings at initialization. */
    private readonly clientProvidesSettings: boolean,
    private readonly initialSettings: unknown,
    private readonly reportProblem: (problem: SettingsProblem) => void,
  ) {}

  get(resource: string): Promise<RolloutEvidenceSettings> {
    let settings = this.byResource.get(resource);
    if (!settings) {
      const raw = this.clientProvidesSettings
        ? this.connection.workspace.getConfiguration({ scopeUri: resource, section: settingsSection }).then(
            (value: unknown) => value,
            () => undefined,
          )
        : Promise.resolve(this.initialSettings);
      settings = raw.then((value) => this.sanitize(value));
      this.byResource.set(resource, settings);
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
