/**
 * The action sequence: benchguard/action_records.jsonl in line order, each record read for what it did
 * to the sandbox user's processes (kill attempts, observations and their outcome) and for whether it
 * graded or only set up. The quiescence and verifier rules both stand on it, and judge line order
 * (rules/actionRecords.ts reports records whose timestamps run backwards). What the recorded exit status
 * of an observing command proves is decided here, once (`StatusVerdict`): the rules report that verdict,
 * and never read the shell analysis themselves.
 *
 * What a record did depends only on the record and the sandbox user, so the language server keeps each
 * rollout's action sequence: after an edit of a 100,000-line log, only the edited line is read again.
 *
 * A record whose event_type or phase the rules do not know is not read as "nothing happened", which
 * would let one flipped letter drop a grading attempt or a kill from the proof; nor is a damaged record
 * (one that breaks its schema: an event_type changed to a neighbour's, a command_preview that is no
 * longer text) read only as what it now says. Each such record is read, once, in every way it could have
 * been written, and what it did becomes three-valued (`Certainty`): an event it may have made is a maybe
 * event, a kind it may be is a maybe kind. The rules run once over these facts: what helps trust needs
 * `yes`, what hurts trust fires on `maybe` too, so any number of damaged records only adds findings.
 */
import type { RolloutBundle } from '../bundle/rollout';
import type { ActionFact, ActionRecord, QuiescenceFact } from '../facts/facts';
import { isJsonObject } from '../parse/jsonKind';
import { parseTimestamp } from '../parse/timestamps';
import { meaningOfStatus, type CommandEvidence } from '../shell/evidence';
import { sandboxUserKey, type SandboxUser } from '../shell/sandboxUser';
import type { Span } from '../shell/syntax';
import type { RecentlyUsedCache } from '../recentlyUsedCache';
import { certaintyOver, possibly, type Certainty } from './certainty';
import { observationProvenances, provenanceCounts, provenanceOf } from './provenance';
import { isSandboxUserName } from '../../../../shared/src/probe';
import {
  actionEventTypeOf,
  actionEventTypes,
  actionPhaseOf,
  actionPhases,
  type ActionEventType,
  type ActionPhase,
} from '../facts/actionKinds';

/**
 * What a command that cannot be read (a damaged record's command_preview that is no string) is read as,
 * in one candidate reading: each thing a BenchFlow exec does that the rules weigh.
 */
type CommandReading =
  'kill' | 'grading' | 'setup' | 'observed-quiescent' | 'observed-survivors' | 'observed-unobservable';
const commandCandidates: readonly (CommandReading | undefined)[] = [
  'kill',
  'grading',
  'setup',
  'observed-quiescent',
  'observed-survivors',
  'observed-unobservable',
  undefined,
];
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
const outcomeCandidates: readonly (OutcomeReading | undefined)[] = [
  'quiescent',
  'survivors',
  'unobservable',
  undefined,
];

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
  /** For an exec whose command_preview holds a NUL byte: the command as a shell is given it, up to the NUL. */
  readonly commandBeforeNul?: string;
}

/**
 * A command_preview with a NUL byte has two meanings: the JSON string as written, and what `sh -c` runs,
 * since an argument reaches the shell as a C string, which ends at its first NUL (`pkill -9 -u agent\u0000`
 * kills agent). Python's subprocess refuses such an argument outright, so no BenchFlow exec ran one as
 * written: both readings are weighed, and neither is taken for sure.
 */
function beforeNul(command: unknown): string | undefined {
  if (typeof command !== 'string') return undefined;
  const nul = command.indexOf('\u0000');
  return nul === -1 ? undefined : command.slice(0, nul);
}

/** `conflated`: the recorded status is also what the command ends with when its observer fails. */
export type ObservationOutcome = 'quiescent' | 'survivors' | 'unobservable' | 'conflated' | 'unknown' | 'intermediate';

/**
 * What the recorded exit status of an observing exec proves, decided once, on its last observation (the
 * one its status belongs to). The shell analysis lists which commands can supply each status
 * (shell/evidence.ts); here that becomes the verdict the rules report: `masked` when a command that
 * cannot report the observation can supply the status (the outcome is then unknown), `conflated` when the
 * status is also what the command ends with when the observer fails (the outcome is conflated).
 */
export interface StatusVerdict {
  readonly misleading?: { readonly kind: 'masked' | 'conflated'; readonly suppliers: readonly Span[] };
  /** The observation whose result is lost or not told apart. */
  readonly observation: Span;
  /** Misleading commands beyond `maximumFindingsPerCommand`, not listed (the first ones found are). */
  readonly unlisted: number;
}

/** What a record did in one reading of it. A kill's `span`: where in command_preview it is, when the command was read. */
export type WrittenEvent =
  | { readonly kind: 'kill'; readonly span?: Span }
  | { readonly kind: 'grading' }
  | { readonly kind: 'observation'; readonly outcome: ObservationOutcome; readonly status?: StatusVerdict };

/**
 * What a record did, over every reading of it: `certain` when each reading makes the event, and for an
 * observation every outcome a reading gives it. A record read one way has only certain events, each
 * with one outcome.
 */
export type StepEvent =
  | { readonly kind: 'kill'; readonly certain: boolean; readonly span?: Span }
  | { readonly kind: 'grading'; readonly certain: boolean }
  | {
      readonly kind: 'observation';
      readonly certain: boolean;
      readonly outcomes: ReadonlySet<ObservationOutcome>;
      readonly status?: StatusVerdict;
    };

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

/** What one action record did, in one reading of it (as written, or as it may have been written). */
export interface RecordReading extends RecordTraits {
  readonly kind: 'exec' | 'sidecar-start' | 'quiescence' | 'other';
  /** An exec whose command is not shell the analysis can read, or beyond its bounds: then it proves nothing. */
  readonly commandUnreadable?: NonNullable<CommandEvidence['syntaxError']>;
  /** Kill attempts, observations and grading, in the order the record made them. */
  readonly events: readonly WrittenEvent[];
  readonly setupOnly: boolean;
  readonly grading: boolean;
  /** Survivor pids the record names. */
  readonly survivorPids: readonly number[];
}

/** Another way to read an uncertain record, and its words for the messages of what only it finds. */
export interface AlternativeReading {
  readonly words: string;
  readonly reading: RecordReading;
}

/**
 * What one action record did, three-valued over every way it may be read. The record's own traits
 * (transport status, time, whether its kind is known, an unreadable command) are as written.
 */
export interface ActionReading extends RecordTraits {
  /** The record as written: what views show and where findings are placed. */
  readonly written: RecordReading;
  /** The other ways a record of unknown kind, or a damaged one, may be read; empty for a record read one way. */
  readonly alternatives: readonly AlternativeReading[];
  readonly kind: RecordReading['kind'];
  readonly commandUnreadable?: RecordReading['commandUnreadable'];
  readonly events: readonly StepEvent[];
  /** An exec run in the separate verifier's service. */
  readonly verifierExec: Certainty;
  /** A successful start of the separate verifier's service. */
  readonly verifierStart: Certainty;
  readonly setupOnly: Certainty;
  readonly grading: Certainty;
  /** Survivor pids any reading names. */
  readonly survivorPids: readonly number[];
}

export interface Step {
  readonly action: ActionFact;
  readonly reading: ActionReading;
}

/** The service the separate verifier runs in. */
export const verifierService = 'benchguard-verifier';

/** What the action sequence is read from: the bundle, whether authored records count (a fixture bundle), and what is kept. */
export interface ActionSequenceSource {
  readonly bundle: RolloutBundle;
  readonly fixtureBundle: boolean;
  readonly caches: ActionCaches;
}

/** What the sequence reads of the model's caches (model/caches.ts keeps them, and names this module's steps). */
export interface ActionCaches {
  readonly commands: { evidenceOf(command: string, user: SandboxUser | undefined): CommandEvidence };
  /** The steps of each rollout's sequence, per sandbox user, kept across edits when the server asks. */
  readonly actionSequences: RecentlyUsedCache<readonly Step[], string> | undefined;
}

/** The action sequence, with the steps each rule reads picked out in the same pass. */
export interface ActionSequence extends ActionSequenceLists {
  /** Records whose event_type or phase is unknown, as `action-kind-unknown` reports them. */
  readonly unknownKinds: readonly Step[];
}

/** The steps each rule reads, picked out of the sequence in one pass. */
export interface ActionSequenceLists {
  readonly steps: readonly Step[];
  /** Steps that kill, observe or grade, in any reading. */
  readonly eventful: readonly Step[];
  /** Steps with a timestamp. */
  readonly timed: readonly Step[];
  /** Execs whose command cannot be read, or whose process outcome is missing where it matters, in any reading. */
  readonly execFaults: readonly Step[];
  /** The first step that is surely a successful start of the verifier service. */
  readonly verifierStart: Step | undefined;
  /** Steps that may be execs in the verifier service. */
  readonly verifierExecs: readonly Step[];
  /** Steps that may be grading attempts. */
  readonly gradings: readonly Step[];
}

export function readActionSequence(source: ActionSequenceSource, user: SandboxUser | undefined): ActionSequence {
  const actions = source.bundle.facts('actions', 'action-records')?.actions ?? [];
  // A step's reading depends on the user and on whether authored records count (a fixture bundle).
  const readingKey = `${sandboxUserKey(user)}\u0000${source.fixtureBundle ? 'fixture' : 'rollout'}`;
  const previous = source.caches.actionSequences?.get(source.bundle.root, readingKey) ?? [];
  // Lines after an insertion or deletion moved by this many records.
  const shift = previous.length - actions.length;
  const steps = new Array<Step>(actions.length);
  const unknownKinds: Step[] = [];
  for (let index = 0; index < actions.length; index++) {
    const action = actions[index]!;
    const step = keptStep(previous, index, action) ??
      keptStep(previous, index + shift, action) ?? { action, reading: actionReadingOf(source, action.record, user) };
    steps[index] = step;
    if (step.reading.eventTypeUnknown || step.reading.phaseUnknown) unknownKinds.push(step);
  }
  source.caches.actionSequences?.set(source.bundle.root, readingKey, steps);
  return { ...listsOf(steps), unknownKinds };
}

function listsOf(steps: readonly Step[]): ActionSequenceLists {
  const lists = {
    steps,
    eventful: [] as Step[],
    timed: [] as Step[],
    execFaults: [] as Step[],
    verifierStart: undefined as Step | undefined,
    verifierExecs: [] as Step[],
    gradings: [] as Step[],
  };
  for (const step of steps) {
    const { action, reading } = step;
    if (reading.events.length > 0) lists.eventful.push(step);
    if (reading.time) lists.timed.push(step);
    if (readingWhere(step, (one) => hasExecFault(action.record, one)) !== undefined) lists.execFaults.push(step);
    if (reading.verifierStart === 'yes') lists.verifierStart ??= step;
    if (possibly(reading.verifierExec)) lists.verifierExecs.push(step);
    if (possibly(reading.grading)) lists.gradings.push(step);
  }
  return lists;
}

/**
 * Under which reading of the step `holds`: '' when it holds as written, the words of the first other
 * reading that makes it hold, undefined when none does.
 */
export function readingWhere(step: Step, holds: (reading: RecordReading) => boolean): string | undefined {
  if (holds(step.reading.written)) return '';
  return step.reading.alternatives.find((alternative) => holds(alternative.reading))?.words;
}

/**
 * The words a finding adds when it holds only under another reading of a record (`readingWhere`): which
 * record, and how it is read. Undefined when it holds as the record is written.
 */
export function readingNote(step: Step, holds: (reading: RecordReading) => boolean): string | undefined {
  const words = readingWhere(step, holds);
  if (!words) return undefined;
  const { reading } = step;
  const what = reading.eventTypeUnknown || reading.phaseUnknown ? 'of unknown kind' : `that ${damageWords(step)}`;
  return `the action record ${what} on line ${step.action.ref.line + 1} is read as ${words}`;
}

/** What makes a step's record uncertain, as a finding says it: "its record …". */
export function uncertaintyWords(step: Step): string {
  return step.reading.eventTypeUnknown || step.reading.phaseUnknown ? 'is of unknown kind' : damageWords(step);
}

function damageWords(step: Step): string {
  // A record read otherwise is of unknown kind, damaged, or holds a command with a NUL byte.
  return step.action.record.damage ?? 'holds a NUL byte in its command_preview';
}

/**
 * The rules read a phase only as Verify or not, so one phase stands for each way of reading it (no phase
 * for all the others); an unknown event type, or the event type of a damaged record, may be any known
 * one, or none.
 */
const phaseCandidates: readonly (ActionPhase | undefined)[] = [
  ...new Map([...actionPhases, undefined].map((phase) => [phase === 'Verify', phase])).values(),
];
const eventTypeCandidates: readonly (ActionEventType | undefined)[] = [...actionEventTypes, undefined];

/** A record read in every way it may have been written, joined into what it surely and maybe did. */
function actionReadingOf(
  source: ActionSequenceSource,
  record: ActionRecord,
  user: SandboxUser | undefined,
): ActionReading {
  const written = readingOf(source, record, user);
  const alternatives = alternativesOf(source, record, user, written);
  const all = [written, ...alternatives.map((alternative) => alternative.reading)];
  return {
    transportOk: written.transportOk,
    time: written.time,
    verifyPhase: written.verifyPhase,
    inVerifierService: written.inVerifierService,
    eventTypeUnknown: written.eventTypeUnknown,
    phaseUnknown: written.phaseUnknown,
    written,
    alternatives,
    kind: written.kind,
    commandUnreadable: written.commandUnreadable,
    events: alternatives.length === 0 ? certainEvents(written) : joinedEvents(all),
    verifierExec: certaintyOver(all, (one) => one.kind === 'exec' && one.inVerifierService),
    verifierStart: certaintyOver(
      all,
      (one) =>
        one.kind === 'sidecar-start' && one.transportOk && (record.service === undefined || one.inVerifierService),
    ),
    setupOnly: certaintyOver(all, (one) => one.setupOnly),
    grading: certaintyOver(all, (one) => one.grading),
    survivorPids:
      alternatives.length === 0 ? written.survivorPids : [...new Set(all.flatMap((one) => one.survivorPids))],
  };
}

function certainEvents(reading: RecordReading): readonly StepEvent[] {
  if (reading.events.length === 0) return noStepEvents;
  return reading.events.map((event) =>
    event.kind === 'observation'
      ? { kind: 'observation', certain: true, outcomes: new Set([event.outcome]), status: event.status }
      : { ...event, certain: true },
  );
}

/**
 * The events of a record read several ways, merged into one sequence in which every reading's events
 * stand in their own order (a kill before its observation stays before it): each reading's events are
 * matched, in order, to the merged ones of the same kind, and an event no slot matches is inserted after
 * the last it did. A slot is certain when every reading matched it, and an observation's outcomes are
 * every outcome a reading gave it there. Where readings do not order two events, the merged order is the
 * one that weighs most against trust without inventing a proof: a grading attempt first (a proof must
 * precede it), a kill next (a proof must follow it), an observation last (never a proof unless every
 * reading makes it, and then it is certain).
 */
const unorderedRank: Record<WrittenEvent['kind'], number> = { grading: 0, kill: 1, observation: 2 };

function joinedEvents(readings: readonly RecordReading[]): readonly StepEvent[] {
  interface Slot {
    readonly kind: WrittenEvent['kind'];
    matched: number;
    readonly outcomes: Set<ObservationOutcome>;
    span?: Span;
    status?: StatusVerdict;
  }
  const slots: Slot[] = [];
  for (const reading of readings) {
    let after = -1;
    for (const event of reading.events) {
      let at = slots.findIndex((slot, index) => index > after && slot.kind === event.kind);
      if (at === -1) {
        // Among events no reading orders against each other: grading first, then kills, then observations.
        at = slots.findIndex((slot, index) => index > after && unorderedRank[slot.kind] > unorderedRank[event.kind]);
        if (at === -1) at = slots.length;
        slots.splice(at, 0, { kind: event.kind, matched: 0, outcomes: new Set() });
      }
      const slot = slots[at]!;
      slot.matched++;
      if (event.kind === 'observation') {
        slot.outcomes.add(event.outcome);
        slot.status ??= event.status;
      } else if (event.kind === 'kill') slot.span ??= event.span;
      after = at;
    }
  }
  return slots.map((slot): StepEvent => {
    const certain = slot.matched === readings.length;
    if (slot.kind === 'observation')
      return { kind: 'observation', certain, outcomes: slot.outcomes, ...(slot.status ? { status: slot.status } : {}) };
    if (slot.kind === 'kill') return { kind: 'kill', certain, ...(slot.span ? { span: slot.span } : {}) };
    return { kind: 'grading', certain };
  });
}

/**
 * The other ways to read a record whose kind is unknown or which breaks its schema: each known event type
 * and none (for a damaged record, or one of unknown event type), Verify or another phase (for an unknown
 * phase), and for what depends on the event type, each way the damage may have hidden it: an exec whose
 * command cannot be read as a kill, grading, setup or an observation of each outcome; a damaged
 * observation as each outcome its return_code can record.
 */
function alternativesOf(
  source: ActionSequenceSource,
  record: ActionRecord,
  user: SandboxUser | undefined,
  written: RecordReading,
): AlternativeReading[] {
  const damaged = record.damage !== undefined;
  const eventTypeVaries = written.eventTypeUnknown || damaged;
  const commandBeforeNul = beforeNul(record.command);
  if (!eventTypeVaries && !written.phaseUnknown && commandBeforeNul === undefined) return [];
  const writtenType = actionEventTypeOf(record.eventType);
  // A command is read otherwise only where one was written or may have been: an exec, or a record of unknown event type.
  const commandVaries =
    damaged && typeof record.command !== 'string' && (writtenType === 'SandboxExec' || writtenType === undefined);
  const outcomeVaries = damaged && !outcomeReadable(record);
  const shared: Pick<KindReading, 'anyUser' | 'inVerifierService'> = {
    ...(damaged && !namesAUser(record.quiescence?.sandboxUser) ? { anyUser: true } : {}),
    ...(damaged && record.service !== undefined && typeof record.service !== 'string'
      ? { inVerifierService: true }
      : {}),
  };
  const alternatives: AlternativeReading[] = [];
  for (const eventType of eventTypeVaries ? eventTypeCandidates : [writtenType]) {
    const details: readonly Pick<KindReading, 'command' | 'outcome' | 'commandBeforeNul'>[] =
      eventType === 'SandboxExec' && commandVaries
        ? commandCandidates.map((command) => (command ? { command } : {}))
        : eventType === 'SandboxExec' && commandBeforeNul !== undefined
          ? [{}, { commandBeforeNul }]
          : eventType === 'SandboxUserQuiescence' && outcomeVaries
            ? outcomeCandidates.map((outcome) => (outcome ? { outcome } : {}))
            : [{}];
    for (const phase of written.phaseUnknown ? phaseCandidates : [actionPhaseOf(record.phase)]) {
      for (const detail of details) {
        const kind: KindReading = { eventType, phase, ...detail, ...shared };
        const words = [
          eventTypeVaries ? `event_type ${eventType ?? 'none known'}` : '',
          details.length > 1 ? detailWords(detail) : '',
          written.phaseUnknown ? `phase ${phase ?? 'other than Verify'}` : '',
        ];
        alternatives.push({
          words: words.filter(Boolean).join(' and '),
          reading: readingOf(source, record, user, kind),
        });
      }
    }
  }
  return alternatives;
}

/** A sandbox_user as a writer gives one (absent says nothing of which user, and is left as it is). */
function namesAUser(name: unknown): boolean {
  return name === undefined || isSandboxUserName(name);
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

function detailWords({
  command,
  outcome,
  commandBeforeNul,
}: Pick<KindReading, 'command' | 'outcome' | 'commandBeforeNul'>): string {
  if (command) return `an unreadable command as ${commandReadingWords[command]}`;
  if (commandBeforeNul !== undefined) return 'its command_preview up to its NUL byte, as sh -c is given it';
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

const noEvents: readonly WrittenEvent[] = [];
const noStepEvents: readonly StepEvent[] = [];
const gradingOnly: readonly WrittenEvent[] = [{ kind: 'grading' }];
const killOnly: readonly WrittenEvent[] = [{ kind: 'kill' }];
const noPids: readonly number[] = [];

function readingOf(
  source: ActionSequenceSource,
  record: ActionRecord,
  user: SandboxUser | undefined,
  kind = kindAsWritten(record),
): RecordReading {
  const status = record.status;
  const traits: RecordTraits = {
    transportOk:
      status === undefined ||
      status === 'ok' ||
      (typeof status === 'string' && /^(ok|success|succeeded)$/i.test(status)),
    time: timeOf(record),
    verifyPhase: kind.phase === 'Verify',
    inVerifierService:
      kind.inVerifierService === true ||
      (typeof record.service === 'string' && record.service.toLowerCase() === verifierService),
    eventTypeUnknown: actionEventTypeOf(record.eventType) === undefined,
    phaseUnknown: record.phase !== undefined && actionPhaseOf(record.phase) === undefined,
  };
  switch (kind.eventType) {
    case 'StartBenchGuardVerifierService':
      return reading('sidecar-start', traits);
    case 'SandboxUserQuiescence':
      // A record that may not prove anything here is not an observation at all (model/provenance.ts).
      if (!observationsCount(record, source.fixtureBundle)) return reading('quiescence', traits);
      return record.quiescence
        ? quiescenceReading(record.quiescence, record.returnCode, kind.anyUser ? undefined : user, traits, kind.outcome)
        : reading('other', traits);
    case 'SandboxExec': {
      if (kind.command) return commandRead(kind.command, traits);
      const command = kind.commandBeforeNul ?? record.command;
      if (typeof command !== 'string') return reading('exec', traits);
      const evidence = source.caches.commands.evidenceOf(command, user);
      const grading =
        evidence.events.length === 0 && !evidence.setupOnly && !evidence.syntaxError && traits.verifyPhase;
      let events = grading ? gradingOnly : noEvents;
      if (evidence.events.length > 0) {
        const outcome = execOutcome(record, evidence, traits.transportOk);
        const status = statusVerdict(evidence, outcome);
        const lastObservation = evidence.events.map((event) => event.kind).lastIndexOf('observation');
        events = evidence.events.map((event, index): WrittenEvent =>
          event.kind === 'kill'
            ? { kind: 'kill', span: event.span }
            : index === lastObservation
              ? { kind: 'observation', outcome, status }
              : { kind: 'observation', outcome: 'intermediate' },
        );
        // Its kills still count, which can only take a proof away; its observations prove nothing.
        if (!observationsCount(record, source.fixtureBundle))
          events = events.filter((event) => event.kind !== 'observation');
      }
      return reading('exec', traits, {
        ...(evidence.syntaxError ? { commandUnreadable: evidence.syntaxError } : {}),
        events,
        setupOnly: evidence.setupOnly,
        grading,
      });
    }
    default:
      return reading('other', traits);
  }
}

/** An exec whose command cannot be read, read as one thing such a command does. */
function commandRead(command: CommandReading, traits: RecordTraits): RecordReading {
  switch (command) {
    case 'kill':
      return reading('exec', traits, { events: killOnly });
    case 'grading':
      return traits.verifyPhase
        ? reading('exec', traits, { events: gradingOnly, grading: true })
        : reading('exec', traits);
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
export function observationsCount(record: ActionRecord, fixtureBundle: boolean): boolean {
  return provenanceCounts(provenanceOf(record.provenance, observationProvenances), fixtureBundle);
}

function kindAsWritten(record: ActionRecord): KindReading {
  return {
    eventType: actionEventTypeOf(record.eventType),
    phase: actionPhaseOf(record.phase),
  };
}

function reading(
  kind: RecordReading['kind'],
  traits: RecordTraits,
  parts: Partial<Pick<RecordReading, 'commandUnreadable' | 'events' | 'setupOnly' | 'grading' | 'survivorPids'>> = {},
): RecordReading {
  return {
    kind,
    commandUnreadable: parts.commandUnreadable,
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

function quiescenceReading(
  fact: QuiescenceFact,
  returnCode: unknown,
  user: SandboxUser | undefined,
  traits: RecordTraits,
  outcomeRead?: OutcomeReading,
): RecordReading {
  // An observation of another user proves nothing about this rollout's sandbox user.
  if (user && !observesUser(fact.sandboxUser, fact.uid, user)) return reading('quiescence', traits);
  // Earlier probes listed a process holding the user's uid as its real uid only apart, as not counted; it
  // can still write as the user, so it is a survivor like the others.
  const survivors = [fact.survivors, fact.setuidProcesses].flatMap((listed) => (Array.isArray(listed) ? listed : []));
  const survivorPids = survivors.flatMap((survivor) =>
    isJsonObject(survivor) && typeof survivor['pid'] === 'number' ? [survivor['pid']] : [],
  );
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
  const observation: WrittenEvent = { kind: 'observation', outcome };
  return reading('quiescence', traits, {
    events: fact.mode === 'harden' ? [{ kind: 'kill' }, observation] : [observation],
    survivorPids,
  });
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

/**
 * The verdict on an observing exec's recorded status: masked when any command that cannot report the
 * observation can supply it (its outcome is then unknown, whatever the status was), conflated when its
 * outcome is, from the commands whose status a failed observer also gives.
 */
function statusVerdict(evidence: CommandEvidence, outcome: ObservationOutcome): StatusVerdict | undefined {
  const observation = evidence.observations.at(-1);
  if (!observation) return undefined;
  const misleading: StatusVerdict['misleading'] =
    evidence.masking.length > 0
      ? { kind: 'masked', suppliers: evidence.masking }
      : outcome === 'conflated'
        ? { kind: 'conflated', suppliers: evidence.conflating }
        : undefined;
  return { ...(misleading ? { misleading } : {}), observation, unlisted: evidence.findingsLeftOut };
}

function timeOf(record: ActionRecord): RecordTraits['time'] {
  const started = parseTimestamp(record.startedAt);
  if (started !== undefined) return { field: 'started_at', value: started };
  const finished = parseTimestamp(record.finishedAt);
  return finished === undefined ? undefined : { field: 'finished_at', value: finished };
}

/** Hardening and verifier execs whose process outcome is missing, or whose command cannot be read. */
function hasExecFault(record: ActionRecord, reading: RecordReading): boolean {
  if (reading.kind !== 'exec') return false;
  if (reading.commandUnreadable) return true;
  const relevant = reading.events.length > 0 || reading.setupOnly || reading.verifyPhase || reading.inVerifierService;
  return relevant && record.status !== undefined && !record.hasReturnCode;
}
