/**
 * Runs the quiescence probe in a target and turns what happened into an outcome that never claims more
 * than was seen: an exec that fails, times out, is cancelled or ends without the probe's own result is
 * "could not observe", never "quiet".
 */
import { probeScriptPlaceholder, probeSettingDefaults, type ProbeOutcome, type ProbeRequest, type ProbeReturnCode, type TranscriptEntry } from '../../../shared/src/probe';
import { execAsRoot } from './engines';
import type { ExecEnd } from './exec/execution';
import { ProbeOutput } from './probeOutput';
import { probeRounds, quiescenceProbeScript } from './probeScript';
import { checkMode, checkTarget, checkUser, ProbeUsageError } from './validation';

export interface ProbeRunOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Cancellation by the user; the request's timeout is added to it. */
  readonly signal?: AbortSignal;
  readonly onTranscript?: (entry: TranscriptEntry) => void;
  /** Whether this process runs as root, for the local target (tests may pretend otherwise). */
  readonly localRoot?: boolean;
}

/**
 * Far more lines than the probe prints (a few per process per round): a target printing more is not
 * running our probe as it should, and the exec is stopped rather than read without end.
 */
const outputLineLimit = 20_000;
/** Longest timeout AbortSignal.timeout takes, in whole seconds; far beyond any real probe. */
const maxTimeoutSeconds = 86_400;
/** Stopping an abandoned probe in its target is best effort, and brief. */
const stopTimeoutMs = 5000;

/** Throws ProbeUsageError, before running anything, when the request cannot be carried out as asked. */
export function checkRequest(request: ProbeRequest, localRoot: boolean): void {
  checkTarget(request.target);
  checkUser(request.user);
  checkMode(request.mode);
  if (!(request.timeoutSeconds > 0 && request.timeoutSeconds <= maxTimeoutSeconds)) throw new ProbeUsageError(`the timeout must be a positive number of seconds up to ${maxTimeoutSeconds}, not ${request.timeoutSeconds}`);
  const grace = request.graceSeconds ?? probeSettingDefaults.graceSeconds;
  if (!Number.isInteger(grace) || grace < 0 || grace > 3600) throw new ProbeUsageError(`the grace period must be a whole number of seconds up to 3600, not ${grace}`);
  if (request.target.kind === 'local' && request.mode === 'harden' && !localRoot) {
    throw new ProbeUsageError('harden on the local target needs root, to signal another user\'s processes; this process is not root. observe still works: /proc status files are readable by everyone.');
  }
}

export async function runProbe(request: ProbeRequest, options: ProbeRunOptions): Promise<ProbeOutcome> {
  const localRoot = options.localRoot ?? process.getuid?.() === 0;
  checkRequest(request, localRoot);
  const flooded = new AbortController();
  const transcript = new Transcript(options.onTranscript, () => flooded.abort(new Error(`the target printed more than ${outputLineLimit} lines, more than the probe ever does`)));
  const output = new ProbeOutput();
  const grace = String(request.graceSeconds ?? probeSettingDefaults.graceSeconds);
  const probeArgs = ['probe', request.mode, request.user, grace, String(probeRounds)];
  const shell = request.target.kind === 'local' ? '/bin/sh' : 'sh';
  const exec = execAsRoot(request.target, [shell, '-c', quiescenceProbeScript, ...probeArgs], [shell, '-c', probeScriptPlaceholder, ...probeArgs], request.dockerAccess ?? 'auto', options.env);

  const timeout = AbortSignal.timeout(Math.ceil(request.timeoutSeconds * 1000));
  const signal = AbortSignal.any([timeout, flooded.signal, ...(options.signal ? [options.signal] : [])]);
  const startedAt = new Date().toISOString();
  transcript.add({ kind: 'command', argv: exec.display });
  const stderr: string[] = [];
  const end = await exec.run({
    signal,
    onStdout: (line) => {
      if (transcript.add({ kind: 'stdout', line })) output.read(line);
    },
    onStderr: (line) => {
      if (stderr.length < 20) stderr.push(line);
      transcript.add({ kind: 'stderr', line });
    },
  });
  const finishedAt = new Date().toISOString();
  transcript.add({ kind: 'exit', status: end.kind === 'exited' ? `exit status ${end.code}` : end.reason });

  const verdict = judge(end, output, stderr, request.timeoutSeconds);
  if (end.kind === 'failed' && output.probePid !== undefined && request.target.kind !== 'local') {
    await stopAbandonedProbe(request, output.probePid, options.env, transcript);
  }
  return {
    request,
    returnCode: verdict.returnCode,
    reason: verdict.reason,
    uid: output.result?.uid ?? null,
    signals: output.signals,
    survivors: verdict.returnCode === 1 ? output.survivors : [],
    setuidProcesses: output.setuidProcesses,
    transportOk: verdict.transportOk,
    startedAt,
    finishedAt,
    observedAt: verdict.transportOk ? (output.result?.observedAt ?? finishedAt) : finishedAt,
    transcript: transcript.entries,
  };
}

/** The probe's result counts only when the exec ended normally with that same status. */
function judge(end: ExecEnd, output: ProbeOutput, stderr: readonly string[], timeoutSeconds: number): { returnCode: ProbeReturnCode; reason: string; transportOk: boolean } {
  if (end.kind === 'failed') {
    const why = end.reason === 'timed out' ? `the probe did not finish within ${timeoutSeconds} s` : end.reason === 'cancelled' ? 'the probe was cancelled before it finished' : `the exec failed: ${end.reason}`;
    return { returnCode: 2, reason: `${why}; nothing was observed`, transportOk: false };
  }
  const result = output.result;
  if (result === undefined) {
    const said = stderr.join(' ').trim().slice(0, 300);
    return { returnCode: 2, reason: `the probe gave no result (exit status ${end.code}${said !== '' ? `: ${said}` : ''})`, transportOk: false };
  }
  if (result.returnCode !== end.code) {
    return { returnCode: 2, reason: `the exec's exit status ${end.code} disagrees with the probe's result ${result.returnCode}`, transportOk: false };
  }
  return { returnCode: result.returnCode, reason: result.reason, transportOk: true };
}

/** A container exec outlives the client that started it: end the probe so it sends no more signals. */
async function stopAbandonedProbe(request: ProbeRequest, pid: number, env: NodeJS.ProcessEnv, transcript: Transcript): Promise<void> {
  const argv = ['kill', '-KILL', String(pid)];
  const exec = execAsRoot(request.target, argv, argv, request.dockerAccess ?? 'auto', env);
  transcript.add({ kind: 'note', text: 'stopping the abandoned probe in the target' });
  transcript.add({ kind: 'command', argv: exec.display });
  const end = await exec.run({ signal: AbortSignal.timeout(stopTimeoutMs), onStdout: (line) => transcript.add({ kind: 'stdout', line }), onStderr: (line) => transcript.add({ kind: 'stderr', line }) });
  transcript.add({ kind: 'exit', status: end.kind === 'exited' ? `exit status ${end.code}` : end.reason });
}

/** Every entry, in order, passed on as it happens; output past the line limit is dropped and stops the exec. */
class Transcript {
  readonly entries: TranscriptEntry[] = [];
  private outputLines = 0;

  constructor(
    private readonly listener: ((entry: TranscriptEntry) => void) | undefined,
    private readonly onFlood: () => void,
  ) {}

  /** False when the entry was dropped. */
  add(entry: TranscriptEntry): boolean {
    if (entry.kind === 'stdout' || entry.kind === 'stderr') {
      if (++this.outputLines > outputLineLimit) {
        if (this.outputLines === outputLineLimit + 1) this.onFlood();
        return false;
      }
    }
    this.entries.push(entry);
    this.listener?.(entry);
    return true;
  }
}
