/**
 * `rolloutEvidence.probe.*` as the user set them. A malformed value falls back to its default, and the
 * problem is returned so the command can say which setting it ignored.
 */
import * as vscode from 'vscode';
import {
  dockerAccesses,
  maxProbeTimeoutSeconds,
  probeSettingDefaults,
  isSandboxUserName,
  type ProbeSettings,
} from '../../../shared/src/probe';
import { settingsSection } from '../../../shared/src/settings';

export function readProbeSettings(): { settings: ProbeSettings; problems: string[] } {
  const section = `${settingsSection}.probe`;
  const configuration = vscode.workspace.getConfiguration(section);
  const problems: string[] = [];
  function read<T>(key: keyof ProbeSettings, valid: (value: unknown) => value is T, expected: string): T {
    const value = configuration.get<unknown>(key);
    if (value === undefined || valid(value)) return (value ?? probeSettingDefaults[key]) as T;
    problems.push(
      `${section}.${key} should be ${expected}, not ${JSON.stringify(value)}; using ${JSON.stringify(probeSettingDefaults[key])}`,
    );
    return probeSettingDefaults[key] as T;
  }
  return {
    settings: {
      sandboxUser: read('sandboxUser', isSandboxUserName, 'a user name or a numeric uid other than 0'),
      timeoutSeconds: read(
        'timeoutSeconds',
        (value): value is number => typeof value === 'number' && value > 0 && value <= maxProbeTimeoutSeconds,
        `a number of seconds above 0 and up to ${maxProbeTimeoutSeconds}`,
      ),
      graceSeconds: read(
        'graceSeconds',
        (value): value is number =>
          typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= maxProbeTimeoutSeconds,
        'a whole number of seconds',
      ),
      docker: read(
        'docker',
        (value): value is ProbeSettings['docker'] => dockerAccesses.some((access) => access === value),
        dockerAccesses.join(', '),
      ),
    },
    problems,
  };
}
