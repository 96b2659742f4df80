/**
 * The action timeline: benchguard/action_records.jsonl in line order, each record read for what it did
 * to the sandbox user's processes (kill attempts, observations and their outcome) and for whether it
 * graded or only set up. The quiescence and verifier rules both stand on it. Records whose timestamps
 * run backwards are flagged here, and line order is kept.
 *
 * What a record did depends only on the record and the sandbox user, so the language server keeps each
 * rollout's timeline: after an edit of a 100,000-line log, only the edited line is read again.
 */
import type { ActionFact, ActionRecord, QuiescenceFact } from '../facts/facts';
import { describeValue, isJsonObject, type JsonObject } from '../parse/jsonKind';
import { parseTimestamp } from '../parse/timestamps';
import { meaningOfStatus, sandboxUserKey, type CommandEvidence, type SandboxUser } from '../shell/evidence';
import type { RuleContext } from './context';

/** `conflated`: the recorded status is also what the command ends with when its observer fails. */
export type ObservationOutcome = 'quiescent' | 'survivors' | 'unobservable' | 'conflated' | 'unknown' | 'intermediate';

export type StepEvent = { readonly kind: 'kill' } | { readonly kind: 'grading' } | { readonly kind: 'observation'; readonly outcome: ObservationOutcome };

/** What any action record says of itself, read once. */
interface RecordTraits {
  /** The exec API call itself succeeded (status "ok"); says nothing of the process outcome. */
  readonly transportOk: boolean;
  /** The record's timestamp (started_at, else finished_at), for the order check. */
  readonly time: { readonly field: 'started_at' | 'finished_at'; readonly value: number } | undefined;
  /** Its phase is Verify, in any case. */
  readonly verifyPhase: boolean;
  /** It ran in the separate verifier's service. */
  readonly inVerifierService: boolean;
}

/** What one action record did. */
export interface ActionReading extends RecordTraits {
  readonly kind: 'exec' | 'sidecar-start' | 'quiescence' | 'other';
  readonly evidence?: CommandEvidence;
  /** Kill attempts, observations and grading, in the order the record made them. */
  readonly events: readonly StepEvent[];
  readonly setupOnly: boolean;
  readonly grading: boolean;
  /** Survivor pids the record names. */
  readonly survivorPids: readonly number[];
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
  return sandboxUserInConfig(value);
}

/** config.json's `sandbox_user`: absent means BenchFlow's default "agent"; null means the agent ran as root. */
export function sandboxUserInConfig(value: JsonObject): SandboxUserState {
  if (!Object.prototype.hasOwnProperty.call(value, 'sandbox_user')) return { kind: 'user', user: { name: 'agent' } };
  const user = value['sandbox_user'];
  if (user === null) return { kind: 'none' };
  if (typeof user === 'string' && user !== '') return { kind: 'user', user: /^\d+$/.test(user) ? { name: user, uid: Number(user) } : { name: user } };
  return { kind: 'unknown', why: 'config.json sandbox_user is neither a user name nor null' };
}

/** The action timeline, with the steps each rule reads picked out in the same pass. */
export interface Timeline {
  readonly steps: readonly Step[];
  /** Steps that kill, observe or grade. */
  readonly eventful: readonly Step[];
  /** Steps with a timestamp. */
  readonly timed: readonly Step[];
  /** Execs whose command cannot be read, or whose process outcome is missing where it matters. */
  readonly execFaults: readonly Step[];
  /** The first successful start of the verifier service. */
  readonly verifierStart: Step | undefined;
  /** Execs in the verifier service. */
  readonly verifierExecs: readonly Step[];
  readonly gradings: readonly Step[];
}

export function buildTimeline(context: RuleContext, user: SandboxUser | undefined): Timeline {
  const actions = context.bundle.facts('actions', 'action-records')?.actions ?? [];
  const userKey = sandboxUserKey(user);
  const kept = context.caches.timelines?.get(context.bundle.root);
  const previous = kept?.user === userKey ? kept.steps : [];
  // Lines after an insertion or deletion moved by this many records.
  const shift = previous.length - actions.length;
  const timeline = { steps: new Array<Step>(actions.length), eventful: [] as Step[], timed: [] as Step[], execFaults: [] as Step[], verifierStart: undefined as Step | undefined, verifierExecs: [] as Step[], gradings: [] as Step[] };
  for (let index = 0; index < actions.length; index++) {
    const action = actions[index]!;
    const step = keptStep(previous, index, action) ?? keptStep(previous, index + shift, action) ?? { action, reading: readingOf(context, action.record, user) };
    const { reading } = step;
    timeline.steps[index] = step;
    if (reading.events.length > 0) timeline.eventful.push(step);
    if (reading.time) timeline.timed.push(step);
    if (hasExecFault(step)) timeline.execFaults.push(step);
    if (reading.kind === 'sidecar-start' && reading.transportOk && (action.record.service === undefined || reading.inVerifierService)) timeline.verifierStart ??= step;
    if (reading.kind === 'exec' && reading.inVerifierService) timeline.verifierExecs.push(step);
    if (reading.grading) timeline.gradings.push(step);
  }
  context.caches.timelines?.set(context.bundle.root, { user: userKey, steps: timeline.steps });
  return timeline;
}

/** The previous step at `index`, when it was made for this very action, or for its record on a line that moved. */
function keptStep(previous: readonly Step[], index: number, action: ActionFact): Step | undefined {
  // Bounds first: an out-of-range index would make the engine look the number up as a property name.
  if (index < 0 || index >= previous.length) return undefined;
  const step = previous[index]!;
  if (step.action === action) return step;
  return step.action.record === action.record ? { action, reading: step.reading } : undefined;
}

const noEvents: readonly StepEvent[] = [];
const gradingOnly: readonly StepEvent[] = [{ kind: 'grading' }];
const noPids: readonly number[] = [];

function readingOf(context: RuleContext, record: ActionRecord, user: SandboxUser | undefined): ActionReading {
  const status = record.status;
  const traits: RecordTraits = {
    transportOk: status === undefined || status === 'ok' || (typeof status === 'string' && /^(ok|success|succeeded)$/i.test(status)),
    time: timeOf(record),
    verifyPhase: record.phase === 'Verify' || (typeof record.phase === 'string' && record.phase.toLowerCase() === 'verify'),
    inVerifierService: typeof record.service === 'string' && record.service.toLowerCase() === verifierService,
  };
  switch (record.eventType) {
    case 'StartBenchGuardVerifierService':
      return reading('sidecar-start', traits);
    case 'SandboxUserQuiescence':
      return record.quiescence ? quiescenceReading(record.quiescence, record.returnCode, user, traits) : reading('other', traits);
    case 'SandboxExec': {
      if (typeof record.command !== 'string') return reading('exec', traits);
      const evidence = context.caches.commands.evidenceOf(record.command, user);
      const grading = evidence.events.length === 0 && !evidence.setupOnly && !evidence.syntaxError && traits.verifyPhase;
      let events = grading ? gradingOnly : noEvents;
      if (evidence.events.length > 0) {
        const outcome = execOutcome(record, evidence, traits.transportOk);
        const lastObservation = evidence.events.map((event) => event.kind).lastIndexOf('observation');
        events = evidence.events.map((event, index): StepEvent => (event.kind === 'kill' ? { kind: 'kill' } : { kind: 'observation', outcome: index === lastObservation ? outcome : 'intermediate' }));
      }
      return reading('exec', traits, { evidence, events, setupOnly: evidence.setupOnly, grading });
    }
    default:
      return reading('other', traits);
  }
}

function reading(kind: ActionReading['kind'], traits: RecordTraits, parts: Partial<Pick<ActionReading, 'evidence' | 'events' | 'setupOnly' | 'grading' | 'survivorPids'>> = {}): ActionReading {
  return {
    kind,
    evidence: parts.evidence,
    events: parts.events ?? noEvents,
    setupOnly: parts.setupOnly ?? false,
    grading: parts.grading ?? false,
    survivorPids: parts.survivorPids ?? noPids,
    transportOk: traits.transportOk,
    time: traits.time,
    verifyPhase: traits.verifyPhase,
    inVerifierService: traits.inVerifierService,
  };
}

function quiescenceReading(fact: QuiescenceFact, returnCode: unknown, user: SandboxUser | undefined, traits: RecordTraits): ActionReading {
  // An observation of another user proves nothing about this rollout's sandbox user.
  if (user && !observesUser(fact.sandboxUser, fact.uid, user)) return reading('quiescence', traits);
  const survivors = Array.isArray(fact.survivors) ? fact.survivors : [];
  const survivorPids = survivors.flatMap((survivor) => (isJsonObject(survivor) && typeof survivor['pid'] === 'number' ? [survivor['pid']] : []));
  const outcome: ObservationOutcome = !traits.transportOk
    ? 'unobservable'
    : returnCode === 2
      ? 'unobservable'
      : returnCode === 1 || survivors.length > 0
        ? 'survivors'
        : returnCode === 0
          ? fact.final === true
            ? 'quiescent'
            : 'intermediate'
          : 'unknown';
  const observation: StepEvent = { kind: 'observation', outcome };
  return reading('quiescence', traits, { events: fact.mode === 'harden' ? [{ kind: 'kill' }, observation] : [observation], survivorPids });
}

function observesUser(name: unknown, uid: unknown, user: SandboxUser): boolean {
  if (typeof name !== 'string') return true;
  return name === user.name || (user.uid !== undefined && (name === String(user.uid) || uid === user.uid));
}

/** What the return code of an observing exec says, from what each status of its command can mean. */
function execOutcome(record: ActionRecord, evidence: CommandEvidence, transportOk: boolean): ObservationOutcome {
  if (!transportOk) return 'unobservable';
  const code = record.returnCode;
  if (!record.hasReturnCode || typeof code !== 'number' || !Number.isInteger(code)) return 'unknown';
  if (evidence.masking.length > 0) return 'unknown';
  return meaningOfStatus(evidence, code);
}

function timeOf(record: ActionRecord): RecordTraits['time'] {
  const started = parseTimestamp(record.startedAt);
  if (started !== undefined) return { field: 'started_at', value: started };
  const finished = parseTimestamp(record.finishedAt);
  return finished === undefined ? undefined : { field: 'finished_at', value: finished };
}

/** Records that say they run before the record above them; line order is what the rules use. */
export function checkTimelineOrder(context: RuleContext, timeline: Timeline): void {
  const file = context.bundle.pathOf('actions');
  let latest: { readonly time: NonNullable<ActionReading['time']>; readonly step: Step } | undefined;
  for (const step of timeline.timed) {
    const time = step.reading.time!;
    if (latest && time.value < latest.time.value) {
      context.report('timeline-order', context.inRecord(file, step.action.ref, [time.field]), `This record's ${time.field} is earlier than the ${latest.time.field} of the record on line ${latest.step.action.ref.line + 1}: timestamps run backwards against line order, so line order is used.`, {
        related: [context.related(context.inRecord(file, latest.step.action.ref, [latest.time.field]), 'the later timestamp, on an earlier line')],
      });
    }
    if (!latest || time.value >= latest.time.value) latest = { time, step };
  }
}

/** Hardening and verifier execs whose process outcome is missing, or whose command cannot be read. */
function hasExecFault({ action, reading }: Step): boolean {
  if (reading.kind !== 'exec') return false;
  if (reading.evidence?.syntaxError) return true;
  const relevant = reading.events.length > 0 || reading.setupOnly || reading.verifyPhase || reading.inVerifierService;
  return relevant && action.record.status !== undefined && !action.record.hasReturnCode;
}

export function checkExecRecords(context: RuleContext, timeline: Timeline): void {
  const file = context.bundle.pathOf('actions');
  for (const { action, reading } of timeline.execFaults) {
    const syntaxError = reading.evidence?.syntaxError;
    if (syntaxError) {
      const at = syntaxError.offset;
      const place = context.inStringValue(file, action.ref, ['command_preview'], { start: at, end: at + 1 });
      if (syntaxError.tooComplex) context.report('command-too-complex', place, `This command is beyond what the shell analysis reads (${syntaxError.message}), so what it proves about the sandbox user or the grading is unknown.`);
      else context.report('command-unparsable', place, `This command is not shell that can be read (${syntaxError.message}), so what it proves about the sandbox user or the grading is unknown.`);
    } else {
      context.report('exec-outcome-missing', context.inRecord(file, action.ref, ['status']), `This exec has a transport status (${describeValue(action.record.status)}) but no return_code: the call went through, but the process outcome is unknown.`);
    }
  }
}
