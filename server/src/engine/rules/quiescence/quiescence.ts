/**
 * Sandbox-user quiescence (BenchFlow #1078): with a sandbox user, the verifier may start only after a
 * checked observation, made after the last kill attempt, found none of the user's processes. A pkill
 * whose status came from a trailing `sleep 1` is not such an observation: the model's action reading
 * decides that (`StatusVerdict` in model/actions.ts), and these rules report it.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { BundleFinding } from '../../findings';
import { describeValue } from '../../parse/jsonKind';
import { maximumFindingsPerCommand, type Span } from '../../shell/syntax';
import type { Place, RuleContext } from '../context';
import { howToObserve } from '../provenance/provenance';
import {
  readingNote,
  readingWhere,
  uncertaintyWords,
  type ActionSequenceLists,
  type ObservationOutcome,
  type Step,
  type StepEvent,
} from '../../model/actions';
import type { SandboxUserState } from '../../model/sandboxUser';

export interface QuiescenceResult {
  /** Rules apply: a sandbox user is set (or unknown, or unreadable). With `sandbox_user: null` nothing applies. */
  readonly applies: boolean;
  /** The positive, final observation after the last kill attempt and before the first grading attempt. */
  readonly proof?: Step;
  /** Findings that show a failed or unchecked precondition (for untrusted-reward). */
  readonly failures: readonly BundleFinding[];
}

interface Located {
  readonly step: Step;
  readonly event: StepEvent;
}

/** A record that may only be this observation's outcome under another reading says so in the finding. */
function outcomeNote(step: Step, outcome: ObservationOutcome): string | undefined {
  return readingNote(step, (reading) =>
    reading.events.some((event) => event.kind === 'observation' && event.outcome === outcome),
  );
}

function eventNote(step: Step, kind: StepEvent['kind']): string | undefined {
  return readingNote(step, (reading) => reading.events.some((event) => event.kind === kind));
}

/** An observation that may have found none: what a later kill or an earlier grading attempt is weighed against. */
function mayFindNone(event: StepEvent): boolean {
  return event.kind === 'observation' && event.outcomes.has('quiescent');
}

/** Surely made, and surely found none: the only observation that can prove quiescence. */
function provesQuiescence(event: StepEvent): boolean {
  return event.kind === 'observation' && event.certain && event.outcomes.size === 1 && event.outcomes.has('quiescent');
}

/**
 * Written once over the three-valued action sequence (model/actions.ts): a kill, a grading attempt or an
 * unfavourable outcome that a record may have made counts as made; an observation proves quiescence only
 * when it surely was made and surely found none.
 */
export function checkQuiescence(
  context: RuleContext,
  actions: ActionSequenceLists,
  sandboxUser: SandboxUserState,
): QuiescenceResult {
  if (sandboxUser.kind === 'none') return { applies: false, failures: [] };
  const file = context.bundle.pathOf('actions');
  const failures: BundleFinding[] = [];

  const sequence: Located[] = actions.eventful.flatMap((step) => step.reading.events.map((event) => ({ step, event })));
  const lastKill = sequence.map((item) => item.event.kind).lastIndexOf('kill');
  const firstGrading = sequence.findIndex((item) => item.event.kind === 'grading');
  const positives = sequence.flatMap((item, index) => (provesQuiescence(item.event) ? [index] : []));
  const lastPositive = positives.at(-1) ?? -1;

  // Observations whose result stands: not followed by a later positive one.
  let failedAfterLastKill = false;
  sequence.forEach(({ step, event }, index) => {
    if (event.kind !== 'observation' || index < lastPositive) return;
    const before = failures.length;
    if (event.outcomes.has('survivors')) {
      const pids = step.reading.survivorPids.length > 0 ? ` (pid ${step.reading.survivorPids.join(', ')})` : '';
      failures.push(
        context.report(
          'quiescence-survivors',
          outcomePlace(context, file, step),
          `This observation reports sandbox-user processes still running${pids}: they could keep writing through open descriptors while the verifier scores.`,
          { holdsWhen: outcomeNote(step, 'survivors') },
        ),
      );
    }
    if (event.outcomes.has('unobservable')) {
      failures.push(
        context.report(
          'quiescence-unobservable',
          outcomePlace(context, file, step),
          step.reading.transportOk
            ? "This observation could not be made (exit status 2 or other failure): the sandbox user's processes are unknown, which is not quiescence."
            : `The exec carrying this observation failed in transport (status ${describeValue(step.action.record.status)}): nothing was observed.`,
          { holdsWhen: outcomeNote(step, 'unobservable') },
        ),
      );
    }
    // An exec that observes twice has one outcome, on its last observation: the verdict on its status is there, once.
    const verdict = event.status;
    if (verdict?.misleading) {
      const { kind, suppliers } = verdict.misleading;
      const observation = commandPlace(context, file, step, verdict.observation);
      for (const span of suppliers) {
        const supplier = commandPlace(context, file, step, span);
        const supplierText = describeValue(commandText(step, span));
        failures.push(
          kind === 'conflated'
            ? context.report(
                'observation-conflates-failure',
                supplier,
                `The exit status of this command comes from ${supplierText}, which gives return_code ${describeValue(step.action.record.returnCode)} both when no process of the sandbox user was found and when the observer itself failed (pgrep exits 2 or 3 when it cannot look): that status is not proof of quiescence. Test the observer's status for exactly "none" (pgrep's 1), as in \`pgrep -u USER >/dev/null; [ $? -eq 1 ]\`.`,
                {
                  related: [context.related(observation, 'the observation whose failure is not told apart')],
                  holdsWhen: eventNote(step, 'observation'),
                },
              )
            : context.report(
                'masked-exit-status',
                supplier,
                `The exit status of this command comes from ${supplierText}, which cannot report what the observation found: ${step.action.record.hasReturnCode ? `return_code ${describeValue(step.action.record.returnCode)}` : 'whatever return code it had'} says nothing about quiescence.`,
                {
                  related: [context.related(observation, 'the observation whose result is lost')],
                  holdsWhen: eventNote(step, 'observation'),
                },
              ),
        );
      }
    }
    const leftOut = verdict?.unlisted ?? 0;
    if (failures.length > before && leftOut > 0) {
      context.report(
        'command-too-complex',
        context.inRecord(file, step.action.ref, ['command_preview']),
        `This command holds ${leftOut} more commands whose exit status cannot report the observation than the ${maximumFindingsPerCommand} reported on it; the rest are not listed one by one.`,
      );
    }
    // Only a failure under every reading says why nothing is proven; one under some leaves unproven to be said.
    if (index > lastKill && failures.slice(before).some((failure) => !failure.underReading)) failedAfterLastKill = true;
  });

  const proofIndex = positives
    .filter((positive) => positive > lastKill && (firstGrading === -1 || positive < firstGrading))
    .at(-1);
  // What hurts trust fires on an observation that may have found none, certain or not.
  const mayBePositive = sequence.flatMap((item, index) => (mayFindNone(item.event) ? [index] : []));
  const postKill = mayBePositive.filter((positive) => positive > lastKill);
  // A grading attempt and an observation that one uncertain record may make are each one reading of it: they
  // are paired only where one reading makes both.
  const afterGrading = postKill.filter(
    (positive) =>
      firstGrading !== -1 &&
      positive > firstGrading &&
      (sequence[positive]!.step !== sequence[firstGrading]!.step ||
        readingWhere(
          sequence[positive]!.step,
          (reading) =>
            reading.grading &&
            reading.events.some((event) => event.kind === 'observation' && event.outcome === 'quiescent'),
        ) !== undefined),
  );
  // Stale: an observation that may have found none before the last kill, and none that surely did after it.
  const stale = positives.some((positive) => positive > lastKill)
    ? undefined
    : mayBePositive.filter((positive) => positive < lastKill).at(-1);
  if (sandboxUser.kind === 'unknown') {
    context.report(
      'quiescence-unproven',
      context.rolloutPlace(),
      `Whether a sandbox user had to be proven quiescent is unknown: ${sandboxUser.why}. BenchFlow's default sandbox user is "agent".`,
      { severity: 'warning' },
    );
    return { applies: true, failures, ...(proofIndex !== undefined ? { proof: sequence[proofIndex]!.step } : {}) };
  }
  // Without a readable user, what the action sequence counts is an observation of any user but root.
  const user =
    sandboxUser.kind === 'user'
      ? {
          subject: `sandbox user ${describeValue(sandboxUser.user.name)}`,
          observed: describeValue(sandboxUser.user.name),
        }
      : { subject: `sandbox user (unknown: ${sandboxUser.why})`, observed: 'any user' };
  if (proofIndex !== undefined) {
    const proof = sequence[proofIndex]!.step;
    if (sandboxUser.kind === 'user') return { applies: true, proof, failures };
    // The action sequence read every user but root as the sandbox user, so this observation may be of another.
    context.report(
      'quiescence-unproven',
      sandboxUserPlace(context),
      `A sandbox user is set, but which one is unknown (${sandboxUser.why}), so the positive observation on line ${proof.action.ref.line + 1} may be of another user and proves nothing. BenchFlow's default sandbox user is "agent".`,
    );
    return { applies: true, failures };
  }

  if (afterGrading.length > 0) {
    const grading = sequence[firstGrading]!.step;
    const observed = sequence[afterGrading[0]!]!;
    const observation = observed.step;
    const holdsWhen =
      eventNote(grading, 'grading') ??
      (provesQuiescence(observed.event) ? undefined : outcomeNote(observation, 'quiescent'));
    failures.push(
      context.report(
        'verifier-before-quiescence',
        context.inRecord(file, grading.action.ref, ['command_preview']),
        `This grading attempt ran before the ${user.subject} was observed quiescent (line ${observation.action.ref.line + 1}): anything still running could have changed what it graded.`,
        {
          related: [
            context.related(
              context.inRecord(file, observation.action.ref),
              'the positive observation, made only after grading',
            ),
          ],
          holdsWhen,
        },
      ),
    );
  } else if (stale !== undefined) {
    const observation = sequence[stale]!.step;
    failures.push(
      context.report(
        'quiescence-stale',
        killPlace(context, file, sequence[lastKill]!),
        `The last positive observation of ${user.observed} (line ${observation.action.ref.line + 1}) was made before this kill attempt, so nothing checked the result of the last kill. ${howToObserve}`,
        {
          related: [
            context.related(
              context.inRecord(file, observation.action.ref),
              'the observation, made before the last kill',
            ),
          ],
          holdsWhen: eventNote(sequence[lastKill]!.step, 'kill'),
        },
      ),
    );
  } else if (!failedAfterLastKill) {
    // When the observation after the last kill failed, that finding already says why nothing is proven.
    const hardening = sequence.some((item) => item.event.kind === 'kill' || item.event.kind === 'observation');
    const place =
      lastKill !== -1
        ? killPlace(context, file, sequence[lastKill]!)
        : firstGrading !== -1
          ? context.inRecord(file, sequence[firstGrading]!.step.action.ref)
          : sandboxUserPlace(context);
    const what =
      lastKill !== -1
        ? 'after this kill attempt'
        : firstGrading !== -1
          ? 'before this grading attempt'
          : `anywhere in ${rolloutFiles.actionRecords}`;
    // An observation that would prove it as written, but whose record may be read otherwise, is named: it is why.
    const uncertain = postKill.map((index) => sequence[index]!).find((item) => !provesQuiescence(item.event));
    const uncertainWords = uncertain
      ? ` The observation on line ${uncertain.step.action.ref.line + 1} may have found none, but its record ${uncertaintyWords(uncertain.step)}, so it proves nothing.`
      : '';
    context.report(
      'quiescence-unproven',
      place,
      `${capitalised(user.subject)} is set, but no checked observation ${what} found ${sandboxUser.kind === 'user' ? 'their' : "any user's"} processes gone${firstGrading !== -1 && lastKill !== -1 ? ' before grading' : ''}.${uncertainWords} A kill that was only sent proves nothing. ${howToObserve}`,
      {
        severity: hardening ? 'error' : 'warning',
      },
    );
  }
  return { applies: true, failures };
}

function outcomePlace(context: RuleContext, file: string, step: Step): Place {
  if (readingWhere(step, (reading) => reading.kind === 'quiescence') !== undefined)
    return context.inRecord(
      file,
      step.action.ref,
      step.reading.survivorPids.length > 0 ? ['survivors'] : ['return_code'],
    );
  return context.inRecord(file, step.action.ref, [step.reading.transportOk ? 'return_code' : 'status']);
}

function killPlace(context: RuleContext, file: string, kill: Located): Place {
  return kill.event.kind === 'kill' && kill.event.span
    ? commandPlace(context, file, kill.step, kill.event.span)
    : context.inRecord(file, kill.step.action.ref, ['event_type']);
}

function commandPlace(context: RuleContext, file: string, step: Step, span: Span): Place {
  return context.inStringValue(file, step.action.ref, ['command_preview'], span);
}

function commandText(step: Step, span: Span): string {
  const command = step.action.record.command;
  return typeof command === 'string' ? command.slice(span.start, span.end) : '';
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sandboxUserPlace(context: RuleContext): Place {
  const config = context.bundle.file('config');
  return config
    ? context.inDocument(config.path, context.bundle.facts('config', 'config'), ['sandbox_user'])
    : context.rolloutPlace();
}
