/**
 * Who the sandbox user is: the one reading of `sandbox_user` that the rules judge by and that the probe
 * offers as its default (the language server reads it through the rollout's model, so the probe observes
 * the user the rules ask about). It is read from the file playing the config role, in the validator's
 * order (run_config.json, else config.json, else metadata.json: `rolloutRoles.config` in
 * shared/src/layout.ts).
 */
import { rolloutFiles } from '../../../../shared/src/layout';
import type { RolloutBundle } from '../bundle/rollout';
import { describeValue, type JsonObject } from '../parse/jsonKind';
import { isSandboxUserName } from '../../../../shared/src/probe';
import type { SandboxUser } from '../shell/sandboxUser';

/**
 * `unknown`: the config is missing, so whether any sandbox user applies is unknown. `unreadable`: the
 * config is there, but its sandbox_user cannot be read (the file is damaged, or the value is no user): a
 * damaged value is never read as null, so a sandbox user is set, and only which one is unknown.
 */
export type SandboxUserState =
  | { readonly kind: 'user'; readonly user: SandboxUser }
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown'; readonly why: string }
  | { readonly kind: 'unreadable'; readonly why: string };

export function sandboxUserOf(bundle: RolloutBundle): SandboxUserState {
  const config = bundle.file('config');
  if (!config) return { kind: 'unknown', why: `the rollout has no ${rolloutFiles.config}` };
  const value = bundle.facts('config', 'config')?.value;
  if (!value)
    return { kind: 'unreadable', why: `${config.path.slice(bundle.root.length + 1)} could not be read as an object` };
  return sandboxUserInConfig(value);
}

/** config.json's `sandbox_user`: absent means BenchFlow's default "agent"; null means the agent ran as root. */
function sandboxUserInConfig(value: JsonObject): SandboxUserState {
  if (!Object.prototype.hasOwnProperty.call(value, 'sandbox_user')) return { kind: 'user', user: { name: 'agent' } };
  const user = value['sandbox_user'];
  if (user === null) return { kind: 'none' };
  // The probe's rule (shared/src/probe.ts): root, or a uid past 32 bits, is no sandbox user a proof can be about.
  if (isSandboxUserName(user))
    return { kind: 'user', user: /^\d+$/.test(user) ? { name: user, uid: Number(user) } : { name: user } };
  return {
    kind: 'unreadable',
    why: `${rolloutFiles.config} sandbox_user ${describeValue(user)} is neither a sandbox user (a name, or a uid other than root's) nor null`,
  };
}
