/**
 * How a simple command is named once the wrappers around it are set aside (sudo, env, timeout, …), and
 * which users it selects: the shell analyser's evidence and its model of a run both read commands so.
 */
import type { SandboxUser } from './sandboxUser';
import type { SimpleCommand, Word } from './syntax';

const wrappers = new Set([
  'sudo',
  'env',
  'timeout',
  'nice',
  'nohup',
  'exec',
  'command',
  'builtin',
  'setpriv',
  'stdbuf',
  'ionice',
  'doas',
  'runuser',
  'chroot',
  'busybox',
]);

/** The command's name and arguments after wrappers such as sudo, env and timeout. */
export function resolve(command: SimpleCommand): { name: string | undefined; args: readonly Word[] } {
  const words = command.words;
  let index = 0;
  while (index < words.length && wrappers.has(basename(words[index]!.text))) {
    const wrapper = basename(words[index]!.text);
    index++;
    // Skip the wrapper's options and operands (a duration, a user, VAR=value) up to the command.
    while (index < words.length) {
      const text = words[index]!.text;
      if (text === '--') {
        index++;
        break;
      }
      if (text.startsWith('-') || /^[A-Za-z_]\w*=/.test(text) || (wrapper === 'timeout' && /^\d/.test(text))) {
        if (['-u', '-g', '-n', '-s', '-k', '-c', '--user', '--group'].includes(text)) index++;
        index++;
        continue;
      }
      if (wrapper === 'chroot' && index + 1 < words.length) {
        index++; // the new root
        continue;
      }
      break;
    }
  }
  const name = words[index]?.text;
  return { name: name === undefined ? undefined : basename(name), args: words.slice(index + 1) };
}

/** Values given to -u, -U, --uid, --euid, --user (separate or attached). */
export function userSelectors(args: readonly Word[]): string[] {
  const values: string[] = [];
  args.forEach((arg, index) => {
    const text = arg.text;
    const attached = /^(?:-[uU]|--(?:e?uid|user)=)(.+)$/.exec(text);
    if (attached) values.push(attached[1]!);
    else if (['-u', '-U', '--uid', '--euid', '--user'].includes(text) && args[index + 1])
      values.push(args[index + 1]!.text);
  });
  return values;
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A -u value (or a comma list of them) names the sandbox user; a value the text computes is taken to. */
export function namesSandboxUser(value: string, user: SandboxUser | undefined): boolean {
  if (value.includes('$')) return true;
  return value
    .split(',')
    .some((one) => (user ? one === user.name || one === String(user.uid) : one !== 'root' && one !== '0'));
}

/** The command selects processes of the sandbox user (`pgrep -u agent`, `ps -U 1001`). */
export function selectsSandboxUser(args: readonly Word[], user: SandboxUser | undefined): boolean {
  const selected = userSelectors(args);
  return selected.length > 0 && selected.some((value) => namesSandboxUser(value, user));
}

const shells = new Set(['sh', 'bash', 'dash', 'ash', 'zsh', 'ksh']);

/** The script of `sh -c 'script'`, `su user -c 'script'` and the like, which runs as part of the command. */
export function scriptArgument(command: SimpleCommand): Word | undefined {
  const first = basename(command.words[0]?.text ?? '');
  if (first === 'su' || first === 'runuser') {
    const flag = command.words.findIndex((word) => word.text === '-c' || word.text === '--command');
    if (flag !== -1) return command.words[flag + 1];
  }
  const { name, args } = resolve(command);
  if (name === undefined || !shells.has(name)) return undefined;
  const flag = args.findIndex((arg) => /^-[a-z]*c[a-z]*$/.test(arg.text));
  return flag === -1 ? undefined : args[flag + 1];
}
