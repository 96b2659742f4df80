/**
 * The action timeline: benchguard/action_records.jsonl in line order, each record read for what it did
 * to the sandbox user's processes (kill attempts, observations and their outcome) and for whether it
 * graded or only set up. The quiescence and verifier rules both stand on it. Records whose timestamps
 * run backwards are flagged here, and line order is kept.
 */
import type { ActionFact } from '../facts/facts';
import { isJsonObject } from '../parse/jsonKind';
import type { CommandEvidence, SandboxUser } from '../shell/evidence';
import type { Place, RuleContext } from './context';

export type { Place };

export type ObservationOutcome = 'quiescent' | 'survivors' | 'unobservable' | 'unknown' | 'intermediate';

export type StepEvent = { readonly kind: 'kill' } | { readonly kind: 'grading' } | { readonly kind: 'observation'; readonly outcome: ObservationOutcome };

export interface Step {
  readonly action: ActionFact;
  readonly kind: 'exec' | 'sidecar-start' | 'quiescence' | 'other';
  readonly evidence?: CommandEvidence;
  /** What the record did, in the order it did it. */
  readonly events: readonly StepEvent[];
  readonly setupOnly: boolean;
  readonly grading: boolean;
  /** The exec API call itself succeeded (status "ok"); says nothing of the process outcome. */
  readonly transportOk: boolean;
  /** Survivor pids the record names. */
  readonly survivorPids: readonly number[];
}

export type SandboxUserState =
  | { readonly kind: 'user'; readonly user: SandboxUser }
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown'; readonly why: string };

export const verifierService = 'benchguard-verifier';

export function sandboxUserOf(context: RuleContext): SandboxUserState {
  const config = context.bundle.file('config');
  if (!config) return { kind: 'unknown', why: 'the rollout has no config.json' };
  const facts = context.bundle.facts('config', 'config');
  const value = facts?.value;
  if (!value) return { kind: 'unknown', why: `${relativeName(context, config.path)} could not be read as an object` };
  if (!Object.prototype.hasOwnProperty.call(value, 'sandbox_user')) return { kind: 'user', user: { name: 'agent' } };
  const user = value['sandbox_user'];
  if (user === null) return { kind: 'none' };
  if (typeof user === 'string' && user !== '') return { kind: 'user', user: /^\d+$/.test(user) ? { name: user, uid: Number(user) } : { name: user } };
  return { kind: 'unknown', why: 'config.json sandbox_user is neither a user name nor null' };
}

export function buildTimeline(context: RuleContext, user: SandboxUser | undefined): Step[] {
  const actions = context.bundle.facts('actions', 'action-records')?.actions ?? [];
  return actions.map((action) => stepOf(context, action, user));
}

function stepOf(context: RuleContext, action: ActionFact, user: SandboxUser | undefined): Step {
  const transportOk = action.status === undefined || (typeof action.status === 'string' && /^(ok|success|succeeded)$/i.test(action.status));
  const base = { action, transportOk, setupOnly: false, grading: false, survivorPids: [] as number[] };
  switch (action.eventType) {
    case 'StartBenchGuardVerifierService':
      return { ...base, kind: 'sidecar-start', events: [] };
    case 'SandboxUserQuiescence': {
      const fact = action.quiescence!;
      // An observation of another user proves nothing about this rollout's sandbox user.
      if (user && !observesUser(fact.sandboxUser, fact.uid, user)) return { ...base, kind: 'quiescence', events: [] };
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
      return { ...base, kind: 'quiescence', survivorPids, events: fact.mode === 'harden' ? [{ kind: 'kill' }, observation] : [observation] };
    }
    case 'SandboxExec': {
      if (typeof action.command !== 'string') return { ...base, kind: 'exec', events: [] };
      const evidence = context.commands.evidenceOf(action.command, user);
      const outcome = execOutcome(action, evidence, transportOk);
      const lastObservation = evidence.events.map((event) => event.kind).lastIndexOf('observation');
      const events: StepEvent[] = evidence.events.map((event, index) =>
        event.kind === 'kill' ? { kind: 'kill' } : { kind: 'observation', outcome: index === lastObservation ? outcome : 'intermediate' },
      );
      const grading = isVerifyPhase(action.phase) && !evidence.syntaxError && !evidence.setupOnly && evidence.events.length === 0;
      if (grading) events.push({ kind: 'grading' });
      return { ...base, kind: 'exec', evidence, events, setupOnly: evidence.setupOnly, grading };
    }
    default:
      return { ...base, kind: 'other', events: [] };
  }
}

function observesUser(name: unknown, uid: unknown, user: SandboxUser): boolean {
  if (typeof name !== 'string') return true;
  return name === user.name || (user.uid !== undefined && (name === String(user.uid) || uid === user.uid));
}

/** What the return code of an observing exec says, given which commands supply it. */
function execOutcome(action: ActionFact, evidence: CommandEvidence, transportOk: boolean): ObservationOutcome {
  if (!transportOk) return 'unobservable';
  const code = action.returnCode;
  if (!action.hasReturnCode || typeof code !== 'number' || !Number.isInteger(code)) return 'unknown';
  if (evidence.masking.length > 0 || evidence.zeroMeans === 'unknown') return 'unknown';
  if (code !== 0 && code !== 1) return 'unobservable';
  const zeroIsQuiet = evidence.zeroMeans === 'quiescent';
  return (code === 0) === zeroIsQuiet ? 'quiescent' : 'survivors';
}

export function isVerifyPhase(phase: unknown): boolean {
  return typeof phase === 'string' && phase.toLowerCase() === 'verify';
}

export function isVerifierService(service: unknown): boolean {
  return typeof service === 'string' && service.toLowerCase() === verifierService;
}

/** Records that say they run before the record above them; line order is what the rules use. */
export function checkTimelineOrder(context: RuleContext, steps: readonly Step[]): void {
  const file = context.bundle.pathOf('actions');
  let latest: { time: number; step: Step; field: string } | undefined;
  for (const step of steps) {
    const field = step.action.startedAt !== undefined ? 'started_at' : 'finished_at';
    const time = parseTimestamp(field === 'started_at' ? step.action.startedAt : step.action.finishedAt);
    if (time === undefined) continue;
    if (latest && time < latest.time) {
      context.report('timeline-order', context.inRecord(file, step.action.ref, [field]), `This record's ${field} is earlier than the ${latest.field} of the record on line ${latest.step.action.ref.line + 1}: timestamps run backwards against line order, so line order is used.`, {
        related: [context.related(context.inRecord(file, latest.step.action.ref, [latest.field]), 'the later timestamp, on an earlier line')],
      });
    }
    if (!latest || time >= latest.time) latest = { time, step, field };
  }
}

/** Hardening and verifier execs whose process outcome is missing, or whose command cannot be read. */
export function checkExecRecords(context: RuleContext, steps: readonly Step[]): void {
  const file = context.bundle.pathOf('actions');
  for (const step of steps) {
    if (step.kind !== 'exec') continue;
    const evidence = step.evidence;
    if (evidence?.syntaxError) {
      const at = evidence.syntaxError.offset;
      context.report('command-unparsable', context.inStringValue(file, step.action.ref, ['command_preview'], { start: at, end: at + 1 }), `This command is not shell that can be read (${evidence.syntaxError.message}), so what it proves about the sandbox user or the grading is unknown.`);
      continue;
    }
    const relevant = step.events.length > 0 || step.setupOnly || isVerifyPhase(step.action.phase) || isVerifierService(step.action.service);
    if (relevant && step.action.status !== undefined && !step.action.hasReturnCode) {
      context.report('exec-outcome-missing', context.inRecord(file, step.action.ref, ['status']), `This exec has a transport status (${JSON.stringify(step.action.status)}) but no return_code: the call went through, but the process outcome is unknown.`);
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

function relativeName(context: RuleContext, path: string): string {
  return path.slice(context.bundle.root.length + 1);
}
