/**
 * What the rules read in each action record, said in a few words for its outline entry and hover:
 * `kill attempt`, `setup-only`, `grading`, `quiescent`, `survivors 1234`, `kind unknown`. The model's action
 * sequence has already read every record, so this costs a pass over its steps.
 */
import type { ActionSequenceLists, ObservationOutcome, RecordReading } from '../model/actions';

const outcomeWords: Record<ObservationOutcome, string> = {
  quiescent: 'quiescent',
  survivors: 'survivors',
  unobservable: 'unobservable',
  conflated: 'failure not told apart',
  unknown: 'outcome unknown',
  intermediate: 'not final',
};

/** Labels by 0-based line of benchguard/action_records.jsonl. */
export function actionReadingLabels(actions: ActionSequenceLists): Map<number, string> {
  const labels = new Map<number, string>();
  for (const step of actions.steps) {
    const label = labelOf(step.reading.written);
    if (label) labels.set(step.action.ref.line, label);
  }
  return labels;
}

function labelOf(reading: RecordReading): string | undefined {
  const words: string[] = [];
  // Said first: what follows is only the reading as written, one of several the rules weigh.
  if (reading.eventTypeUnknown || reading.phaseUnknown) words.push('kind unknown');
  for (const event of reading.events) {
    if (event.kind === 'kill') words.push('kill attempt');
    else if (event.kind === 'observation')
      words.push(
        event.outcome === 'survivors' && reading.survivorPids.length > 0
          ? `survivors ${reading.survivorPids.join(' ')}`
          : outcomeWords[event.outcome],
      );
  }
  if (reading.setupOnly) words.push('setup-only');
  else if (reading.grading) words.push('grading');
  return words.length > 0 ? [...new Set(words)].join(', then ') : undefined;
}
