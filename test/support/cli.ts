/** The built CLI run as a user runs it: a separate process, its stdout, stderr and exit status. */
import { spawnSync } from 'node:child_process';
import { builtCli, repoRoot } from './repo';

export type CliRun = { status: number | null; stdout: string; stderr: string };

/** The built CLI in its own process; `prefix` is a command that runs it, such as setpriv to run it as another user. */
export function cli(
  args: readonly string[],
  {
    cwd = repoRoot,
    prefix = [],
    env = process.env,
  }: { cwd?: string; prefix?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): CliRun {
  const [command, ...commandArgs] = [...prefix, process.execPath, builtCli, ...args];
  const result = spawnSync(command!, commandArgs, { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
