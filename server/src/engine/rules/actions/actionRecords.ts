/**
 * The checks of the action records themselves, on the action sequence the model read (model/actions.ts):
 * timestamps that run backwards against line order, execs whose command cannot be read or whose process
 * outcome is missing, kinds the rules do not know, and provenance that keeps a record from proving anything.
 */
import { actionEventTypes, actionPhases } from '../../facts/actionKinds';
import {
  observationsCount,
  readingNote,
  type ActionReading,
  type ActionSequence,
  type ActionSequenceLists,
  type Step,
} from '../../model/actions';
import { observationProvenances, provenanceOf } from '../../model/provenance';
import { describeValue } from '../../parse/jsonKind';
import type { RuleContext } from '../context';
import { howToObserve, reportUncountedProvenance } from '../provenance/provenance';

/** Records that say they run before the record above them; line order is what the rules use. */
export function checkActionOrder(context: RuleContext, actions: ActionSequenceLists): void {
  const file = context.bundle.pathOf('actions');
  let latest: { readonly time: NonNullable<ActionReading['time']>; readonly step: Step } | undefined;
  for (const step of actions.timed) {
    const time = step.reading.time!;
    if (latest && time.value < latest.time.value) {
      context.report(
        'timeline-order',
        context.inRecord(file, step.action.ref, [time.field]),
        `This record's ${time.field} is earlier than the ${latest.time.field} of the record on line ${latest.step.action.ref.line + 1}: timestamps run backwards against line order, so line order is used.`,
        {
          related: [
            context.related(
              context.inRecord(file, latest.step.action.ref, [latest.time.field]),
              'the later timestamp, on an earlier line',
            ),
          ],
        },
      );
    }
    if (!latest || time.value >= latest.time.value) latest = { time, step };
  }
}

export function checkExecRecords(context: RuleContext, actions: ActionSequenceLists): void {
  const file = context.bundle.pathOf('actions');
  for (const step of actions.execFaults) {
    const { action, reading } = step;
    const syntaxError = reading.commandUnreadable;
    if (syntaxError) {
      const at = syntaxError.offset;
      const place = context.inStringValue(file, action.ref, ['command_preview'], { start: at, end: at + 1 });
      if (syntaxError.tooComplex)
        context.report(
          'command-too-complex',
          place,
          `This command is beyond what the shell analysis reads (${syntaxError.message}), so what it proves about the sandbox user or the grading is unknown.`,
        );
      else
        context.report(
          'command-unparsable',
          place,
          `This command is not shell that can be read (${syntaxError.message}), so what it proves about the sandbox user or the grading is unknown.`,
        );
    } else {
      context.report(
        'exec-outcome-missing',
        context.inRecord(file, action.ref, ['status']),
        `This exec has a transport status (${describeValue(action.record.status)}) but no return_code: the call went through, but the process outcome is unknown.`,
        { holdsWhen: readingNote(step, (one) => one.kind === 'exec') },
      );
    }
  }
}

/** Records whose event_type or phase is none the rules know: the model reads them as each kind (model/actions.ts). */
export function checkActionKinds(context: RuleContext, actions: ActionSequence): void {
  const file = context.bundle.pathOf('actions');
  const consequence =
    'so it is read as each kind the rules know: what it may have done counts against the proof, and it proves nothing itself.';
  for (const { action, reading } of actions.unknownKinds) {
    const { record } = action;
    if (reading.eventTypeUnknown) {
      const what =
        record.eventType === undefined
          ? 'This record has no event_type'
          : `This record's event_type ${describeValue(record.eventType)} is none the rules know`;
      context.report(
        'action-kind-unknown',
        record.eventType === undefined
          ? context.inRecord(file, action.ref)
          : context.inRecord(file, action.ref, ['event_type']),
        `${what} (${actionEventTypes.join(', ')}, in any case), ${consequence}`,
      );
    }
    if (reading.phaseUnknown) {
      context.report(
        'action-kind-unknown',
        context.inRecord(file, action.ref, ['phase']),
        `This record's phase ${describeValue(record.phase)} is none the rules know (${actionPhases.join(', ')}, in any case), ${consequence}`,
      );
    }
  }
}

/** Action records whose provenance keeps them from proving anything in this bundle: authored outside a fixture, or unknown. */
export function checkActionProvenance(context: RuleContext, actions: ActionSequenceLists): void {
  const file = context.bundle.pathOf('actions');
  for (const { action } of actions.steps) {
    const value = action.record.provenance;
    if (value === undefined || observationsCount(action.record, context.options.fixtureBundle)) continue;
    reportUncountedProvenance(
      context,
      file,
      action.ref,
      { provenance: provenanceOf(value, observationProvenances), value, known: observationProvenances },
      'This action record',
      howToObserve,
    );
  }
}
