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
import type { ActionSequenceLists, ObservationOutcome, StatusVerdict, Step } from '../../model/actions';
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
  readonly kind: 'kill' | 'observation' | 'grading';
  readonly outcome?: ObservationOutcome;
  /** An observation's: what its recorded status proves, as the model decided it. */
  readonly status?: StatusVerdict;
  /** A kill's: where in the command it is. */
  readonly span?: Span;
}

export function checkQuiescence(
  context: RuleContext,
  actions: ActionSequenceLists,
  sandboxUser: SandboxUserState,
): QuiescenceResult {
  if (sandboxUser.kind === 'none') return { applies: false, failures: [] };
  const file = context.bundle.pathOf('actions');
  const failures: BundleFinding[] = [];

  const sequence: Located[] = [];
  for (const step of actions.eventful) {
    for (const event of step.reading.events) {
      if (event.kind === 'observation')
        sequence.push({ step, kind: event.kind, outcome: event.outcome, status: event.status });
      else if (event.kind === 'kill') sequence.push({ step, kind: event.kind, span: event.span });
      else sequence.push({ step, kind: event.kind });
    }
  }
  const lastKill = sequence.map((item) => item.kind).lastIndexOf('kill');
  const firstGrading = sequence.findIndex((item) => item.kind === 'grading');
  const positives = sequence.flatMap((item, index) =>
    item.kind === 'observation' && item.outcome === 'quiescent' ? [index] : [],
  );
  const lastPositive = positives.at(-1) ?? -1;

  // Observations whose result stands: not followed by a later positive one.
  let failedAfterLastKill = false;
  sequence.forEach((item, index) => {
    if (item.kind !== 'observation' || index < lastPositive) return;
    const { step } = item;
    const before = failures.length;
    if (item.outcome === 'survivors') {
      const pids = step.reading.survivorPids.length > 0 ? ` (pid ${step.reading.survivorPids.join(', ')})` : '';
      failures.push(
        context.report(
          'quiescence-survivors',
          outcomePlace(context, file, step),
          `This observation reports sandbox-user processes still running${pids}: they could keep writing through open descriptors while the verifier scores.`,
        ),
      );
    } else if (item.outcome === 'unobservable') {
      failures.push(
        context.report(
          'quiescence-unobservable',
          outcomePlace(context, file, step),
          step.reading.transportOk
            ? "This observation could not be made (exit status 2 or other failure): the sandbox user's processes are unknown, which is not quiescence."
            : `The exec carrying this observation failed in transport (status ${describeValue(step.action.record.status)}): nothing was observed.`,
        ),
      );
    }
    // An exec that observes twice has one outcome, on its last observation: the verdict on its status is there, once.
    const verdict = item.status;
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
                },
              )
            : context.report(
                'masked-exit-status',
                supplier,
                `The exit status of this command comes from ${supplierText}, which cannot report what the observation found: ${step.action.record.hasReturnCode ? `return_code ${describeValue(step.action.record.returnCode)}` : 'whatever return code it had'} says nothing about quiescence.`,
                {
                  related: [context.related(observation, 'the observation whose result is lost')],
                },
              ),
        );
      }
    }
    const leftOut = item.status?.unlisted ?? 0;
    if (failures.length > before && leftOut > 0) {
      context.report(
        'command-too-complex',
        context.inRecord(file, step.action.ref, ['command_preview']),
        `This command holds ${leftOut} more commands whose exit status cannot report the observation than the ${maximumFindingsPerCommand} reported on it; the rest are not listed one by one.`,
      );
    }
    if (failures.length > before && index > lastKill) failedAfterLastKill = true;
  });

  const postKill = positives.filter((positive) => positive > lastKill);
  const proofIndex = postKill.filter((positive) => firstGrading === -1 || positive < firstGrading).at(-1);
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

  if (postKill.length > 0) {
    const grading = sequence[firstGrading]!.step;
    const observation = sequence[postKill[0]!]!.step;
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
        },
      ),
    );
  } else if (positives.length > 0) {
    const observation = sequence[lastPositive]!.step;
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
        },
      ),
    );
  } else if (!failedAfterLastKill) {
    // When the observation after the last kill failed, that finding already says why nothing is proven.
    const hardening = sequence.some((item) => item.kind === 'kill' || item.kind === 'observation');
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
    context.report(
      'quiescence-unproven',
      place,
      `${capitalised(user.subject)} is set, but no checked observation ${what} found ${sandboxUser.kind === 'user' ? 'their' : "any user's"} processes gone${firstGrading !== -1 && lastKill !== -1 ? ' before grading' : ''}. A kill that was only sent proves nothing. ${howToObserve}`,
      {
        severity: hardening ? 'error' : 'warning',
      },
    );
  }
  return { applies: true, failures };
}

function outcomePlace(context: RuleContext, file: string, step: Step): Place {
  if (step.reading.kind === 'quiescence')
    return context.inRecord(
      file,
      step.action.ref,
      step.reading.survivorPids.length > 0 ? ['survivors'] : ['return_code'],
    );
  return context.inRecord(file, step.action.ref, [step.reading.transportOk ? 'return_code' : 'status']);
}

function killPlace(context: RuleContext, file: string, kill: Located): Place {
  return kill.span
    ? commandPlace(context, file, kill.step, kill.span)
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
