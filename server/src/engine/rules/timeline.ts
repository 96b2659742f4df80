/**
 * The action timeline: benchguard/action_records.jsonl in line order, each record read for what it did
 * to the sandbox user's processes (kill attempts, observations and their outcome) and for whether it
 * graded or only set up. The quiescence and verifier rules both stand on it. Records whose timestamps
 * run backwards are flagged here, and line order is kept.
 *
 * What a record did depends only on the record and the sandbox user, so its reading is kept with the
 * record: after an edit of a 100,000-line log, only the edited line is read again.
 */
import type { ActionFact, ActionRecord } from '../facts/facts';
import { isJsonObject } from '../parse/jsonKind';
import type { CommandEvidence, SandboxUser } from '../shell/evidence';
import type { Place, RuleContext } from './context';

export type { Place };

export type ObservationOutcome = 'quiescent' | 'survivors' | 'unobservable' | 'unknown' | 'intermediate';

export type StepEvent = { readonly kind: 'kill' } | { readonly kind: 'grading' } | { readonly kind: 'observation'; readonly outcome: ObservationOutcome };

/** What one action record did. */
export interface ActionReading {
  readonly kind: 'exec' | 'sidecar-start' | 'quiescence' | 'other';
  readonly evidence?: CommandEvidence;
  /** Kill attempts, observations and grading, in the order the record made them. */
  readonly events: readonly StepEvent[];
  readonly setupOnly: boolean;
  readonly grading: boolean;
  /** The exec API call itself succeeded (status "ok"); says nothing of the process outcome. */
  readonly transportOk: boolean;
  /** Survivor pids the record names. */
  readonly survivorPids: readonly number[];
  /** The record's timestamp (started_at, else finished_at), for the order check. */
  readonly time: { readonly field: 'started_at' | 'finished_at'; readonly value: number } | undefined;
}

export interface Step {
  readonly action: ActionFact;
  readonly reading: ActionReading;
}

export type SandboxUserState =
  | { readonly kind: 'user'; readonly user: SandboxUser }
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown'; readonly why: string };

export const verifierService = 'benchguard-verifier';

export function sandboxUserOf(context: RuleContext): SandboxUserState {
  const config = context.bundle.file('config');
  if (!config) return { kind: 'unknown', why: 'the rollout has no config.json' };
  const value = context.bundle.facts('config', 'config')?.value;
  if (!value) return { kind: 'unknown', why: `${config.path.slice(context.bundle.root.length + 1)} could not be read as an object` };
  if (!Object.prototype.hasOwnProperty.call(value, 'sandbox_user')) return { kind: 'user', user: { name: 'agent' } };
  const user = value['sandbox_user'];
  if (user === null) return { kind: 'none' };
  if (typeof user === 'string' && user !== '') return { kind: 'user', user: /^\d+$/.test(user) ? { name: user, uid: Number(user) } : { name: user } };
  return { kind: 'unknown', why: 'config.json sandbox_user is neither a user name nor null' };
}

export function buildTimeline(context: RuleContext, user: SandboxUser | undefined): Step[] {
  const actions = context.bundle.facts('actions', 'action-records')?.actions ?? [];
  const userKey = `${user?.name ?? ''}\u0000${user?.uid ?? ''}`;
  const { readings, steps } = context.caches;
  return actions.map((action) => {
    const known = steps.get(action);
    if (known?.user === userKey) return known.step;
    let reading = readings.get(action.record);
    if (reading?.user !== userKey) {
      reading = { user: userKey, reading: readingOf(context, action.record, user) };
      readings.set(action.record, reading);
    }
    const step = { action, reading: reading.reading };
    steps.set(action, { user: userKey, step });
    return step;
  });
}

const noEvents: readonly StepEvent[] = [];
const gradingOnly: readonly StepEvent[] = [{ kind: 'grading' }];
const noPids: readonly number[] = [];

// Object literals rather than spreads: this runs once per record of logs with 100,000 of them.
function readingOf(context: RuleContext, record: ActionRecord, user: SandboxUser | undefined): ActionReading {
  const status = record.status;
  const transportOk = status === undefined || status === 'ok' || (typeof status === 'string' && /^(ok|success|succeeded)$/i.test(status));
  const time = timeOf(record);
  switch (record.eventType) {
    case 'StartBenchGuardVerifierService':
      return { kind: 'sidecar-start', events: noEvents, setupOnly: false, grading: false, transportOk, survivorPids: noPids, time };
    case 'SandboxUserQuiescence':
      return quiescenceReading(record, user, transportOk, time);
    case 'SandboxExec': {
      if (typeof record.command !== 'string') return { kind: 'exec', events: noEvents, setupOnly: false, grading: false, transportOk, survivorPids: noPids, time };
      const evidence = context.caches.commands.evidenceOf(record.command, user);
      const grading = evidence.events.length === 0 && !evidence.setupOnly && !evidence.syntaxError && isVerifyPhase(record.phase);
      let events = grading ? gradingOnly : noEvents;
      if (evidence.events.length > 0) {
        const outcome = execOutcome(record, evidence, transportOk);
        const lastObservation = evidence.events.map((event) => event.kind).lastIndexOf('observation');
        events = evidence.events.map((event, index): StepEvent => (event.kind === 'kill' ? { kind: 'kill' } : { kind: 'observation', outcome: index === lastObservation ? outcome : 'intermediate' }));
      }
      return { kind: 'exec', evidence, events, setupOnly: evidence.setupOnly, grading, transportOk, survivorPids: noPids, time };
    }
    default:
      return { kind: 'other', events: noEvents, setupOnly: false, grading: false, transportOk, survivorPids: noPids, time };
  }
}

function quiescenceReading(record: ActionRecord, user: SandboxUser | undefined, transportOk: boolean, time: ActionReading['time']): ActionReading {
  const fact = record.quiescence!;
  // An observation of another user proves nothing about this rollout's sandbox user.
  if (user && !observesUser(fact.sandboxUser, fact.uid, user)) return { kind: 'quiescence', events: noEvents, setupOnly: false, grading: false, transportOk, survivorPids: noPids, time };
  const survivors = Array.isArray(fact.survivors) ? fact.survivors : [];
  const survivorPids = survivors.flatMap((survivor) => (isJsonObject(survivor) && typeof survivor['pid'] === 'number' ? [survivor['pid']] : []));
  const outcome: ObservationOutcome = !transportOk
    ? 'unobservable'
    : fact.returnCode === 2
      ? 'unobservable'
      : fact.returnCode === 1 || survivors.length > 0
        ? 'survivors'
        : fact.returnCode === 0
          ? fact.final === true
            ? 'quiescent'
            : 'intermediate'
          : 'unknown';
  const observation: StepEvent = { kind: 'observation', outcome };
  return { kind: 'quiescence', events: fact.mode === 'harden' ? [{ kind: 'kill' }, observation] : [observation], setupOnly: false, grading: false, transportOk, survivorPids, time };
}

function observesUser(name: unknown, uid: unknown, user: SandboxUser): boolean {
  if (typeof name !== 'string') return true;
  return name === user.name || (user.uid !== undefined && (name === String(user.uid) || uid === user.uid));
}

/** What the return code of an observing exec says, given which commands supply it. */
function execOutcome(record: ActionRecord, evidence: CommandEvidence, transportOk: boolean): ObservationOutcome {
  if (!transportOk) return 'unobservable';
  const code = record.returnCode;
  if (!record.hasReturnCode || typeof code !== 'number' || !Number.isInteger(code)) return 'unknown';
  if (evidence.masking.length > 0 || evidence.zeroMeans === 'unknown') return 'unknown';
  if (code !== 0 && code !== 1) return 'unobservable';
  const zeroIsQuiet = evidence.zeroMeans === 'quiescent';
  return (code === 0) === zeroIsQuiet ? 'quiescent' : 'survivors';
}

function timeOf(record: ActionRecord): ActionReading['time'] {
  const field = record.startedAt !== undefined ? 'started_at' : 'finished_at';
  const value = parseTimestamp(field === 'started_at' ? record.startedAt : record.finishedAt);
  return value === undefined ? undefined : { field, value };
}

export function isVerifyPhase(phase: unknown): boolean {
  return phase === 'Verify' || (typeof phase === 'string' && phase.toLowerCase() === 'verify');
}

export function isVerifierService(service: unknown): boolean {
  return typeof service === 'string' && service.toLowerCase() === verifierService;
}

/** Records that say they run before the record above them; line order is what the rules use. */
export function checkTimelineOrder(context: RuleContext, steps: readonly Step[]): void {
  const file = context.bundle.pathOf('actions');
  let latest: { readonly time: NonNullable<ActionReading['time']>; readonly step: Step } | undefined;
  for (const step of steps) {
    const time = step.reading.time;
    if (!time) continue;
    if (latest && time.value < latest.time.value) {
      context.report('timeline-order', context.inRecord(file, step.action.ref, [time.field]), `This record's ${time.field} is earlier than the ${latest.time.field} of the record on line ${latest.step.action.ref.line + 1}: timestamps run backwards against line order, so line order is used.`, {
        related: [context.related(context.inRecord(file, latest.step.action.ref, [latest.time.field]), 'the later timestamp, on an earlier line')],
      });
    }
    if (!latest || time.value >= latest.time.value) latest = { time, step };
  }
}

/** Hardening and verifier execs whose process outcome is missing, or whose command cannot be read. */
export function checkExecRecords(context: RuleContext, steps: readonly Step[]): void {
  const file = context.bundle.pathOf('actions');
  for (const { action, reading } of steps) {
    if (reading.kind !== 'exec') continue;
    const evidence = reading.evidence;
    if (evidence?.syntaxError) {
      const at = evidence.syntaxError.offset;
      context.report('command-unparsable', context.inStringValue(file, action.ref, ['command_preview'], { start: at, end: at + 1 }), `This command is not shell that can be read (${evidence.syntaxError.message}), so what it proves about the sandbox user or the grading is unknown.`);
      continue;
    }
    const record = action.record;
    const relevant = reading.events.length > 0 || reading.setupOnly || isVerifyPhase(record.phase) || isVerifierService(record.service);
    if (relevant && record.status !== undefined && !record.hasReturnCode) {
      context.report('exec-outcome-missing', context.inRecord(file, action.ref, ['status']), `This exec has a transport status (${JSON.stringify(record.status)}) but no return_code: the call went through, but the process outcome is unknown.`);
    }
  }
}

/** Milliseconds for ISO 8601 and for Python's str(datetime) ("2026-08-22 10:00:00.000001"). */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '0', zone] = match;
  const milliseconds = Number(`0.${fraction}`) * 1000;
  let time = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) + milliseconds;
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return time;
}
