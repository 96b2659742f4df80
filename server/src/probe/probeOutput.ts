/**
 * Reads the probe's JSON lines. The output crosses a container boundary, so every field is checked; a
 * line that is not one of ours is left in the transcript and otherwise ignored.
 */
import { isJsonObject, type JsonObject } from '../../../shared/src/jsonObject';
import type { ProbeReturnCode, SeenProcess, SentSignal } from '../../../shared/src/probe';

export interface ProbeResultLine {
  readonly returnCode: ProbeReturnCode;
  readonly uid: number | null;
  readonly reason: string;
  /** When the line arrived: the moment of the final observation, as near as the host can tell. */
  readonly observedAt: string;
}

export class ProbeOutput {
  readonly signals: SentSignal[] = [];
  readonly survivors: SeenProcess[] = [];
  /** The probe's own pid in the target, from its first line: what to stop if the exec is abandoned. */
  probePid: number | undefined;
  result: ProbeResultLine | undefined;

  read(line: string): void {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    if (!isJsonObject(event)) return;
    switch (event['event']) {
      case 'start':
        this.probePid = positiveInteger(event['probe_pid']);
        break;
      case 'signal': {
        const signal = event['signal'];
        const pid = positiveInteger(event['pid']);
        const round = positiveInteger(event['round']);
        if ((signal === 'TERM' || signal === 'KILL') && pid !== undefined && round !== undefined)
          this.signals.push({ signal, pid, round, delivered: event['delivered'] === true });
        break;
      }
      case 'survivor': {
        const process = seenProcess(event);
        if (process) this.survivors.push(process);
        break;
      }
      case 'result': {
        const code = event['return_code'];
        if (code !== 0 && code !== 1 && code !== 2) break;
        const uid = positiveInteger(event['uid']) ?? null;
        this.result = {
          returnCode: code,
          uid,
          reason: typeof event['reason'] === 'string' ? event['reason'] : '',
          observedAt: new Date().toISOString(),
        };
        break;
      }
    }
  }
}

function seenProcess(event: JsonObject): SeenProcess | undefined {
  const pid = positiveInteger(event['pid']);
  const ruid = wholeNumber(event['ruid']);
  const euid = wholeNumber(event['euid']);
  const suid = wholeNumber(event['suid']);
  const fsuid = wholeNumber(event['fsuid']);
  if (pid === undefined || ruid === undefined || euid === undefined || suid === undefined || fsuid === undefined)
    return undefined;
  return {
    pid,
    ruid,
    euid,
    suid,
    fsuid,
    state: typeof event['state'] === 'string' ? event['state'] : '?',
    name: typeof event['name'] === 'string' ? event['name'] : '?',
    pid1: event['pid1'] === true,
  };
}

function wholeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function positiveInteger(value: unknown): number | undefined {
  const number = wholeNumber(value);
  return number !== undefined && number > 0 ? number : undefined;
}
