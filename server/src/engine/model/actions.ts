/**
 * The action timeline: benchguard/action_records.jsonl in line order, each record read for what it did
 * to the sandbox user's processes (kill attempts, observations and their outcome) and for whether it
 * graded or only set up. The quiescence and verifier rules both stand on it. Records whose timestamps
 * run backwards are flagged here, and line order is kept.
 *
 * What a record did depends only on the record and the sandbox user, so the language server keeps each
 * rollout's timeline: after an edit of a 100,000-line log, only the edited line is read again.
 *
 * A record whose event_type or phase the rules do not know is not read as "nothing happened", which
 * would let one flipped letter drop a grading attempt or a kill from the proof; nor is a damaged record
 * (one that breaks its schema: an event_type changed to a neighbour's, a command_preview that is no
 * longer text) read only as what it now says. The timeline is also built under each candidate reading
 * of such records (see `Timeline.candidates`), and the rules report what any reading finds.
 */
import type { ActionFact, ActionRecord, QuiescenceFact } from '../facts/facts';
import { describeValue, isJsonObject, type JsonObject } from '../parse/jsonKind';
import { parseTimestamp } from '../parse/timestamps';
import { meaningOfStatus, sandboxUserKey, type CommandEvidence, type SandboxUser } from '../shell/evidence';
import type { RuleContext } from '../rules/context';
import { howToObserve, observationProvenances, provenanceCounts, provenanceOf, reportUncountedProvenance } from '../rules/provenance';

/**
 * The action kinds the rules know: this is their one home. Both compare case-insensitively
 * (`SandboxExeC` is SandboxExec). The action-record schema leaves both open, because a newer BenchFlow
 * may write kinds this checker has not met and the schema must not drown such logs in noise; so a kind
 * outside these lists is reported by the rules (`action-kind-unknown`), which also read the record under
 * each known kind instead of skipping it.
 */
export const actionEventTypes = ['SandboxExec', 'StartBenchGuardVerifierService', 'SandboxUserQuiescence'] as const;
export const actionPhases = ['Setup', 'Agent', 'Harden', 'Verify'] as const;

export type ActionEventType = (typeof actionEventTypes)[number];
export type ActionPhase = (typeof actionPhases)[number];

const eventTypesByLowerCase = new Map<string, ActionEventType>(actionEventTypes.map((name) => [name.toLowerCase(), name]));
const phasesByLowerCase = new Map<string, ActionPhase>(actionPhases.map((name) => [name.toLowerCase(), name]));

function knownName<T>(names: ReadonlyMap<string, T>, value: unknown): T | undefined {
  return typeof value === 'string' ? names.get(value.toLowerCase()) : undefined;
}

/**
 * What a command that cannot be read (a damaged record's command_preview that is no string) is read as,
 * in one candidate reading: each thing a BenchFlow exec does that the rules weigh.
 */
type CommandReading = 'kill' | 'grading' | 'setup' | 'observed-quiescent' | 'observed-survivors' | 'observed-unobservable';
const commandCandidates: readonly (CommandReading | undefined)[] = ['kill', 'grading', 'setup', 'observed-quiescent', 'observed-survivors', 'observed-unobservable', undefined];
const commandReadingWords: Record<CommandReading, string> = {
  kill: 'a kill attempt',
  grading: 'grading',
  setup: 'setup only',
  'observed-quiescent': 'an observation that found none',
  'observed-survivors': 'an observation that found survivors',
  'observed-unobservable': 'an observation that could not observe',
};

/**
 * What a damaged observation is read as, in one candidate reading: each outcome its return_code can
 * record (0 quiescent, 1 survivors, 2 cannot observe), since the damage may be in what decides it.
 */
type OutcomeReading = 'quiescent' | 'survivors' | 'unobservable';
const outcomeCandidates: readonly (OutcomeReading | undefined)[] = ['quiescent', 'survivors', 'unobservable', undefined];

/** How a record's kind is read: a known event type and phase, or none (an unknown one is read under each). */
interface KindReading {
  readonly eventType: ActionEventType | undefined;
  readonly phase: ActionPhase | undefined;
  /** For an exec whose command cannot be read: what it is read as; none reads it as it is. */
  readonly command?: CommandReading;
  /** For a damaged observation: the outcome it is read as; none reads it as it is. */
  readonly outcome?: OutcomeReading;
  /** For a damaged observation whose sandbox_user is no user name: read as of the rollout's sandbox user. */
  readonly anyUser?: boolean;
  /** For a damaged record whose service is no string: read as run in the separate verifier's service. */
  readonly inVerifierService?: boolean;
}

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
  /** Its event_type is missing or none of `actionEventTypes`. */
  readonly eventTypeUnknown: boolean;
  /** It has a phase, and that phase is none of `actionPhases`. */
  readonly phaseUnknown: boolean;
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

/**
 * Who the sandbox user is. `unknown`: config.json is missing, so whether any sandbox user applies is
 * unknown. `unreadable`: config.json is there, but its sandbox_user cannot be read (the file is damaged,
 * or the value is no user): a damaged value is never read as null, so a sandbox user is set, and only
 * which one is unknown.
 */
export type SandboxUserState =
  | { readonly kind: 'user'; readonly user: SandboxUser }
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown'; readonly why: string }
  | { readonly kind: 'unreadable'; readonly why: string };

export const verifierService = 'benchguard-verifier';

export function sandboxUserOf(context: RuleContext): SandboxUserState {
  const config = context.bundle.file('config');
  if (!config) return { kind: 'unknown', why: 'the rollout has no config.json' };
  const value = context.bundle.facts('config', 'config')?.value;
  if (!value) return { kind: 'unreadable', why: `${config.path.slice(context.bundle.root.length + 1)} could not be read as an object` };
  return sandboxUserInConfig(value);
}

/** A user name as config.json's schema allows it, or a numeric uid as the probe accepts one. */
const userNameOrUid = /^(?:[a-z_][a-z0-9_-]*|\d+)$/;

/** config.json's `sandbox_user`: absent means BenchFlow's default "agent"; null means the agent ran as root. */
export function sandboxUserInConfig(value: JsonObject): SandboxUserState {
  if (!Object.prototype.hasOwnProperty.call(value, 'sandbox_user')) return { kind: 'user', user: { name: 'agent' } };
  const user = value['sandbox_user'];
  if (user === null) return { kind: 'none' };
  if (typeof user === 'string' && userNameOrUid.test(user)) return { kind: 'user', user: /^\d+$/.test(user) ? { name: user, uid: Number(user) } : { name: user } };
  return { kind: 'unreadable', why: `config.json sandbox_user ${describeValue(user)} is neither a user name nor null` };
}

/** The action timeline, with the steps each rule reads picked out in the same pass. */
export interface Timeline extends TimelineLists {
  /** Records whose event_type or phase is unknown, as `action-kind-unknown` reports them. */
  readonly unknownKinds: readonly Step[];
  /** Those records and the damaged ones (`ActionRecord.damaged`): what the candidates read otherwise. */
  readonly uncertain: readonly Step[];
  /**
   * The timeline again under each candidate reading of the uncertain records; empty when
   * there are none. In one candidate every such record takes the same reading (each known event type, or
   * none; for an exec whose command cannot be read, a kill, grading, setup or an observation of each
   * outcome; for a damaged observation,
   * each outcome; Verify or another phase for an unknown phase), which bounds the passes at twenty-six
   * whatever the number of such records. A single
   * damaged record is thereby read in every way it could have been written; several are not read in
   * every combination.
   */
  readonly candidates: readonly CandidateTimeline[];
}

export interface CandidateTimeline extends TimelineLists {
  /** The reading, in words, for the messages of what only it finds. */
  readonly reading: string;
}

/** The steps each rule reads, picked out of the timeline in one pass. */
export interface TimelineLists {
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
  // A step's reading depends on the user and on whether authored records count (a fixture bundle).
  const readingKey = `${sandboxUserKey(user)}\u0000${context.options.fixtureBundle ? 'fixture' : 'rollout'}`;
  const kept = context.caches.timelines?.get(context.bundle.root);
  const previous = kept?.readFor === readingKey ? kept.steps : [];
  // Lines after an insertion or deletion moved by this many records.
  const shift = previous.length - actions.length;
  const steps = new Array<Step>(actions.length);
  const unknownKinds: Step[] = [];
  const uncertain: Step[] = [];
  for (let index = 0; index < actions.length; index++) {
    const action = actions[index]!;
    const step = keptStep(previous, index, action) ?? keptStep(previous, index + shift, action) ?? { action, reading: readingOf(context, action.record, user) };
    steps[index] = step;
    const unknownKind = step.reading.eventTypeUnknown || step.reading.phaseUnknown;
    if (unknownKind) unknownKinds.push(step);
    if (unknownKind || action.record.damaged) uncertain.push(step);
  }
  context.caches.timelines?.set(context.bundle.root, { readFor: readingKey, steps });
  return { ...listsOf(steps), unknownKinds, uncertain, candidates: candidateTimelines(context, steps, uncertain, user) };
}

function listsOf(steps: readonly Step[]): TimelineLists {
  const lists = { steps, eventful: [] as Step[], timed: [] as Step[], execFaults: [] as Step[], verifierStart: undefined as Step | undefined, verifierExecs: [] as Step[], gradings: [] as Step[] };
  for (const step of steps) {
    const { action, reading } = step;
    if (reading.events.length > 0) lists.eventful.push(step);
    if (reading.time) lists.timed.push(step);
    if (hasExecFault(step)) lists.execFaults.push(step);
    if (reading.kind === 'sidecar-start' && reading.transportOk && (action.record.service === undefined || reading.inVerifierService)) lists.verifierStart ??= step;
    if (reading.kind === 'exec' && reading.inVerifierService) lists.verifierExecs.push(step);
    if (reading.grading) lists.gradings.push(step);
  }
  return lists;
}

/**
 * The rules read a phase only as Verify or not, so one phase stands for each way of reading it (no phase
 * for all the others); an unknown event type, or the event type of a damaged record, may be any known
 * one, or none.
 */
const phaseCandidates: readonly (ActionPhase | undefined)[] = [...new Map([...actionPhases, undefined].map((phase) => [phase === 'Verify', phase])).values()];
const eventTypeCandidates: readonly (ActionEventType | undefined)[] = [...actionEventTypes, undefined];

function candidateTimelines(context: RuleContext, steps: readonly Step[], uncertain: readonly Step[], user: SandboxUser | undefined): CandidateTimeline[] {
  if (uncertain.length === 0) return [];
  const eventTypeVaries = (step: Step) => step.reading.eventTypeUnknown || step.action.record.damaged;
  // A command is read otherwise only where one was written or may have been: an exec, or a record of unknown event type.
  const commandVaries = ({ action: { record } }: Step) => {
    const written = knownName(eventTypesByLowerCase, record.eventType);
    return record.damaged && typeof record.command !== 'string' && (written === 'SandboxExec' || written === undefined);
  };
  const outcomeVaries = (step: Step) => step.action.record.damaged && !outcomeReadable(step.action.record);
  const eventTypes = uncertain.some(eventTypeVaries) ? eventTypeCandidates : [undefined];
  const phases = uncertain.some((step) => step.reading.phaseUnknown) ? phaseCandidates : [undefined];
  const candidates: CandidateTimeline[] = [];
  for (const eventType of eventTypes) {
    // What the reading of a damaged record's content varies with its event type: the command of an exec, the outcome of an observation.
    const details: readonly Pick<KindReading, 'command' | 'outcome'>[] =
      eventType === 'SandboxExec' && uncertain.some(commandVaries)
        ? commandCandidates.map((command) => (command ? { command } : {}))
        : eventType === 'SandboxUserQuiescence' && uncertain.some(outcomeVaries)
          ? outcomeCandidates.map((outcome) => (outcome ? { outcome } : {}))
          : [{}];
    for (const phase of phases) {
      for (const detail of details) {
        const readings = new Map<ActionFact, Step>();
        for (const step of uncertain) {
          const { record } = step.action;
          const kind: KindReading = {
            eventType: eventTypeVaries(step) ? eventType : knownName(eventTypesByLowerCase, record.eventType),
            phase: step.reading.phaseUnknown ? phase : knownName(phasesByLowerCase, record.phase),
            ...(detail.command && commandVaries(step) ? { command: detail.command } : {}),
            ...(detail.outcome && outcomeVaries(step) ? { outcome: detail.outcome } : {}),
            ...(record.damaged && !namesAUser(record.quiescence?.sandboxUser) ? { anyUser: true } : {}),
            ...(record.damaged && record.service !== undefined && typeof record.service !== 'string' ? { inVerifierService: true } : {}),
          };
          readings.set(step.action, { action: step.action, reading: readingOf(context, record, user, kind) });
        }
        const words = [
          eventTypes.length > 1 ? `event_type ${eventType ?? 'none known'}` : '',
          details.length > 1 ? detailWords(detail) : '',
          phases.length > 1 ? `phase ${phase ?? 'other than Verify'}` : '',
        ];
        candidates.push({ ...listsOf(steps.map((step) => readings.get(step.action) ?? step)), reading: words.filter(Boolean).join(' and ') });
      }
    }
  }
  return candidates;
}

/** A sandbox_user as a writer gives one (absent says nothing of which user, and is left as it is). */
function namesAUser(name: unknown): boolean {
  return name === undefined || (typeof name === 'string' && userNameOrUid.test(name));
}

/**
 * Whether what decides a damaged record's observation outcome still reads as a writer gives it (the
 * damage is elsewhere: a missing digest, a target of the wrong shape), so its outcome is as written.
 */
function outcomeReadable({ returnCode, status, quiescence }: ActionRecord): boolean {
  if (!quiescence) return false;
  const absentOr = (value: unknown, fits: (value: unknown) => boolean) => value === undefined || fits(value);
  // Every writer gives an observation its return_code and final: a missing one is what decided the outcome, lost.
  return (
    (returnCode === 0 || returnCode === 1 || returnCode === 2) &&
    absentOr(status, (value) => typeof value === 'string') &&
    absentOr(quiescence.survivors, Array.isArray) &&
    absentOr(quiescence.setuidProcesses, Array.isArray) &&
    typeof quiescence.final === 'boolean' &&
    absentOr(quiescence.mode, (value) => value === 'observe' || value === 'harden')
  );
}

function detailWords({ command, outcome }: Pick<KindReading, 'command' | 'outcome'>): string {
  if (command) return `an unreadable command as ${commandReadingWords[command]}`;
  if (outcome) return `a damaged observation as ${outcome === 'unobservable' ? 'unable to observe' : outcome}`;
  return 'its content as it is';
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
const killOnly: readonly StepEvent[] = [{ kind: 'kill' }];
const noPids: readonly number[] = [];

function readingOf(context: RuleContext, record: ActionRecord, user: SandboxUser | undefined, kind = kindAsWritten(record)): ActionReading {
  const status = record.status;
  const traits: RecordTraits = {
    transportOk: status === undefined || status === 'ok' || (typeof status === 'string' && /^(ok|success|succeeded)$/i.test(status)),
    time: timeOf(record),
    verifyPhase: kind.phase === 'Verify',
    inVerifierService: kind.inVerifierService === true || (typeof record.service === 'string' && record.service.toLowerCase() === verifierService),
    eventTypeUnknown: knownName(eventTypesByLowerCase, record.eventType) === undefined,
    phaseUnknown: record.phase !== undefined && knownName(phasesByLowerCase, record.phase) === undefined,
  };
  switch (kind.eventType) {
    case 'StartBenchGuardVerifierService':
      return reading('sidecar-start', traits);
    case 'SandboxUserQuiescence':
      // A record that may not prove anything here is not an observation at all (rules/provenance.ts).
      if (!observes(context, record)) return reading('quiescence', traits);
      return record.quiescence ? quiescenceReading(record.quiescence, record.returnCode, kind.anyUser ? undefined : user, traits, kind.outcome) : reading('other', traits);
    case 'SandboxExec': {
      if (kind.command) return commandRead(kind.command, traits);
      if (typeof record.command !== 'string') return reading('exec', traits);
      const evidence = context.caches.commands.evidenceOf(record.command, user);
      const grading = evidence.events.length === 0 && !evidence.setupOnly && !evidence.syntaxError && traits.verifyPhase;
      let events = grading ? gradingOnly : noEvents;
      if (evidence.events.length > 0) {
        const outcome = execOutcome(record, evidence, traits.transportOk);
        const lastObservation = evidence.events.map((event) => event.kind).lastIndexOf('observation');
        events = evidence.events.map((event, index): StepEvent => (event.kind === 'kill' ? { kind: 'kill' } : { kind: 'observation', outcome: index === lastObservation ? outcome : 'intermediate' }));
        // Its kills still count, which can only take a proof away; its observations prove nothing.
        if (!observes(context, record)) events = events.filter((event) => event.kind !== 'observation');
      }
      return reading('exec', traits, { evidence, events, setupOnly: evidence.setupOnly, grading });
    }
    default:
      return reading('other', traits);
  }
}

/** An exec whose command cannot be read, read as one thing such a command does. */
function commandRead(command: CommandReading, traits: RecordTraits): ActionReading {
  switch (command) {
    case 'kill':
      return reading('exec', traits, { events: killOnly });
    case 'grading':
      return traits.verifyPhase ? reading('exec', traits, { events: gradingOnly, grading: true }) : reading('exec', traits);
    case 'setup':
      return reading('exec', traits, { setupOnly: true });
    case 'observed-quiescent':
      return reading('exec', traits, { events: [{ kind: 'observation', outcome: 'quiescent' }] });
    case 'observed-survivors':
      return reading('exec', traits, { events: [{ kind: 'observation', outcome: 'survivors' }] });
    case 'observed-unobservable':
      return reading('exec', traits, { events: [{ kind: 'observation', outcome: 'unobservable' }] });
  }
}

/** Whether the record's observations may prove anything in this bundle, by who wrote it. */
function observes(context: RuleContext, record: ActionRecord): boolean {
  return provenanceCounts(provenanceOf(record.provenance, observationProvenances), context.options.fixtureBundle);
}

function kindAsWritten(record: ActionRecord): KindReading {
  return { eventType: knownName(eventTypesByLowerCase, record.eventType), phase: knownName(phasesByLowerCase, record.phase) };
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
    eventTypeUnknown: traits.eventTypeUnknown,
    phaseUnknown: traits.phaseUnknown,
  };
}

function quiescenceReading(fact: QuiescenceFact, returnCode: unknown, user: SandboxUser | undefined, traits: RecordTraits, outcomeRead?: OutcomeReading): ActionReading {
  // An observation of another user proves nothing about this rollout's sandbox user.
  if (user && !observesUser(fact.sandboxUser, fact.uid, user)) return reading('quiescence', traits);
  // Earlier probes listed a process holding the user's uid as its real uid only apart, as not counted; it
  // can still write as the user, so it is a survivor like the others.
  const survivors = [fact.survivors, fact.setuidProcesses].flatMap((listed) => (Array.isArray(listed) ? listed : []));
  const survivorPids = survivors.flatMap((survivor) => (isJsonObject(survivor) && typeof survivor['pid'] === 'number' ? [survivor['pid']] : []));
  const outcome: ObservationOutcome = outcomeRead
    ? outcomeRead
    : !traits.transportOk
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
export function checkTimelineOrder(context: RuleContext, timeline: TimelineLists): void {
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

export function checkExecRecords(context: RuleContext, timeline: TimelineLists): void {
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

/** Records whose event_type or phase is none the rules know: the rules read them under every candidate kind. */
export function checkActionKinds(context: RuleContext, timeline: Timeline): void {
  const file = context.bundle.pathOf('actions');
  const consequence = 'so what it did is read in every way the rules know, and what any of those readings finds is reported: the proof around it cannot rest on it being nothing.';
  for (const { action, reading } of timeline.unknownKinds) {
    const { record } = action;
    if (reading.eventTypeUnknown) {
      const what = record.eventType === undefined ? 'This record has no event_type' : `This record's event_type ${describeValue(record.eventType)} is none the rules know`;
      context.report('action-kind-unknown', record.eventType === undefined ? context.inRecord(file, action.ref) : context.inRecord(file, action.ref, ['event_type']), `${what} (${actionEventTypes.join(', ')}, in any case), ${consequence}`);
    }
    if (reading.phaseUnknown) {
      context.report('action-kind-unknown', context.inRecord(file, action.ref, ['phase']), `This record's phase ${describeValue(record.phase)} is none the rules know (${actionPhases.join(', ')}, in any case), ${consequence}`);
    }
  }
}

/** Action records whose provenance keeps them from proving anything in this bundle: authored outside a fixture, or unknown. */
export function checkActionProvenance(context: RuleContext, timeline: TimelineLists): void {
  const file = context.bundle.pathOf('actions');
  for (const { action } of timeline.steps) {
    const value = action.record.provenance;
    if (value === undefined || observes(context, action.record)) continue;
    reportUncountedProvenance(context, file, action.ref, { provenance: provenanceOf(value, observationProvenances), value, known: observationProvenances }, 'This action record', howToObserve);
  }
}
