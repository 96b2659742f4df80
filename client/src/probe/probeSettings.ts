/** `rolloutEvidence.probe.*` as the user set them, each falling back to its default when malformed. */
import * as vscode from 'vscode';
import { dockerAccesses, probeSettingDefaults, sandboxUserPattern, type ProbeSettings } from '../../../shared/src/probe';
import { settingsSection } from '../../../shared/src/settings';

export function readProbeSettings(): ProbeSettings {
  const configuration = vscode.workspace.getConfiguration(`${settingsSection}.probe`);
  const user = configuration.get<unknown>('sandboxUser');
  const timeout = configuration.get<unknown>('timeoutSeconds');
  const grace = configuration.get<unknown>('graceSeconds');
  const docker = dockerAccesses.find((access) => access === configuration.get<unknown>('docker'));
  return {
    sandboxUser: typeof user === 'string' && sandboxUserPattern.test(user) ? user : probeSettingDefaults.sandboxUser,
    timeoutSeconds: typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout) ? timeout : probeSettingDefaults.timeoutSeconds,
    graceSeconds: typeof grace === 'number' && Number.isInteger(grace) && grace >= 0 && grace <= 3600 ? grace : probeSettingDefaults.graceSeconds,
    docker: docker ?? probeSettingDefaults.docker,
  };
}
