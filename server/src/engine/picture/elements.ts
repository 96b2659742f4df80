/**
 * Every element of a rollout's timeline, read from its model: prompts, tool calls and the timeout marker
 * from the trajectory; kill attempts, observations, sidecar start, setup and grading execs from the action
 * sequence the rules read; the reward where the model reads it (and untrusted-reward flags it). Each points
 * at its line and carries the codes the rules placed there.
 */
import type {
  TimelineElement,
  TimelineElementKind,
  TimelineLaneId,
  TimelineStatus,
} from '../../../../shared/src/timelinePicture';
import type { ToolCallFact } from '../facts/facts';
import type { BundleFinding } from '../findings';
import type { RolloutModel } from '../model/rolloutModel';
import { rewardPlace } from '../model/reward';
import { writtenAs, writtenLastTimeout } from '../model/rowReadings';
import type { ObservationOutcome, Step } from '../model/actions';
import type { Placement } from './axis';

export interface Candidate extends Omit<TimelineElement, 'label'> {
  /** Common and unremarkable: may be counted in a bin instead of drawn. */
  readonly routine: boolean;
  /** The label, made only for what is drawn: a summary counts tens of thousands of elements it never labels. */
  readonly label: () => string;
}

const noCodes: readonly string[] = [];
const labelLength = 80;

export function collectElements(
  model: RolloutModel,
  findings: readonly BundleFinding[],
  placement: Placement,
): Candidate[] {
  const {
    bundle,
    actions: { steps },
  } = model;
  const codes = codesByLine(findings);
  const codesAt = (file: string, line: number) => codes.get(file)?.get(line) ?? noCodes;
  const elements: Candidate[] = [];

  const trajectory = bundle.facts('trajectory', 'acp-trajectory');
  if (trajectory) {
    const file = bundle.pathOf('trajectory');
    for (const prompt of trajectory.prompts) {
      const { start } = placement.trajectoryRow(prompt.ref.line);
      const found = codesAt(file, prompt.ref.line);
      elements.push({
        kind: 'prompt',
        lane: 'agent',
        label: () => shorten(prompt.preview ?? '(no text)'),
        start,
        file,
        line: prompt.ref.line,
        status: 'ok',
        findings: found,
        routine: found.length === 0,
      });
    }
    for (const call of trajectory.toolCalls) {
      if (!writtenAs(call, 'tool_call')) continue;
      const span = placement.trajectoryRow(call.ref.line);
      const status = toolCallStatus(call.status);
      const found = codesAt(file, call.ref.line);
      const label = () =>
        `${shorten(call.title ?? (typeof call.id === 'string' ? call.id : 'tool call'))} (${typeof call.status === 'string' ? call.status : 'no status'})`;
      elements.push({
        kind: 'tool-call',
        lane: 'tools',
        label,
        start: span.start,
        end: span.end,
        file,
        line: call.ref.line,
        status,
        findings: found,
        routine: status === 'ok' && found.length === 0,
      });
    }
    const timeout = writtenLastTimeout(trajectory);
    if (timeout) {
      const pending = Array.isArray(timeout.pendingIds)
        ? timeout.pendingIds.filter((id): id is string => typeof id === 'string')
        : [];
      const label = pending.length > 0 ? `pending: ${shorten(pending.join(', '))}` : 'no pending calls';
      elements.push({
        kind: 'timeout',
        lane: 'agent',
        label: () => label,
        start: placement.trajectoryRow(timeout.ref.line).start,
        file,
        line: timeout.ref.line,
        status: 'ok',
        findings: codesAt(file, timeout.ref.line),
        routine: false,
      });
    }
  }

  const actionsFile = bundle.pathOf('actions');
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index]!;
    const span = placement.actionSteps[index]!;
    const found = codesAt(actionsFile, step.action.ref.line);
    const at = {
      start: span.start,
      ...(span.end > span.start ? { end: span.end } : {}),
      file: actionsFile,
      line: step.action.ref.line,
      findings: found,
    };
    for (const element of stepElements(step))
      elements.push({ ...at, ...element, label: () => element.label, routine: element.routine && found.length === 0 });
  }

  if (model.reward) {
    const { value } = model.reward;
    const place = rewardPlace(model.reward);
    const found = codesAt(place.file, place.range.start.line);
    elements.push({
      kind: 'reward',
      lane: 'reward',
      label: () => value,
      start: placement.end,
      file: place.file,
      line: place.range.start.line,
      status: found.length > 0 ? 'unknown' : 'ok',
      findings: found,
      routine: false,
    });
  }
  return elements;
}

type StepElement = Pick<Candidate, 'kind' | 'lane' | 'status' | 'routine'> & { readonly label: string };

/** One element per thing a record did: a command that kills and then observes is both. */
function stepElements({ action, reading: { written: reading } }: Step): StepElement[] {
  // The record as written: what the rules also weigh of its other readings is in their findings.
  const record = action.record;
  const lane: TimelineLaneId = reading.verifyPhase || reading.inVerifierService ? 'verifier' : 'hardening';
  const command = typeof record.command === 'string' ? shorten(record.command) : undefined;
  const returnCode = record.hasReturnCode ? ` → ${String(record.returnCode)}` : '';
  const failed: TimelineStatus | undefined = reading.transportOk ? undefined : 'failed';
  if (reading.kind === 'sidecar-start') {
    const service = typeof record.service === 'string' ? shorten(record.service) : 'no service named';
    return [
      {
        kind: 'sidecar-start',
        lane: 'verifier',
        label: `${service}${reading.transportOk ? '' : ` (status ${String(record.status)})`}`,
        status: failed ?? 'ok',
        routine: false,
      },
    ];
  }

  const elements: StepElement[] = [];
  const what =
    reading.kind === 'quiescence'
      ? `Quiescence record${record.quiescence?.mode === 'harden' ? ' (harden)' : ''}`
      : (command ?? String(record.eventType));
  if (reading.events.some((event) => event.kind === 'kill'))
    elements.push({ kind: 'kill', lane: 'hardening', label: what, status: failed ?? 'ok', routine: false });
  const observations = reading.events.flatMap((event) => (event.kind === 'observation' ? [event.outcome] : []));
  if (observations.length > 0) {
    const outcome = observations[observations.length - 1]!;
    const survivors =
      reading.survivorPids.length > 0 ? `; survivors ${reading.survivorPids.slice(0, 8).join(', ')}` : '';
    const status = observationStatus(outcome);
    // The status names the outcome, except the two it folds into ok and unknown.
    const unsaid = outcome === status ? '' : ` (${outcome})`;
    elements.push({
      kind: 'observation',
      lane: 'hardening',
      label: `${what}${returnCode}${survivors}${unsaid}`,
      status,
      routine: false,
    });
  }
  if (elements.length > 0) return elements;

  if (reading.grading)
    return [
      {
        kind: 'grading',
        lane: 'verifier',
        label: `${command ?? '(no command)'}${returnCode}`,
        status: failed ?? 'ok',
        routine: false,
      },
    ];
  const kind: TimelineElementKind = reading.setupOnly ? 'setup' : 'exec';
  const nonZero = record.hasReturnCode && record.returnCode !== 0;
  const eventType = reading.setupOnly || reading.kind === 'exec' ? '' : `${String(record.eventType)}: `;
  const label = `${eventType}${command ?? '(no command)'}${returnCode}`;
  return [{ kind, lane, label, status: failed ?? (nonZero ? 'failed' : 'ok'), routine: !failed && !nonZero }];
}

function observationStatus(outcome: ObservationOutcome): TimelineStatus {
  // A status that a failed observer also gives proves nothing: unknown, as the picture draws it.
  return outcome === 'intermediate' ? 'ok' : outcome === 'conflated' ? 'unknown' : outcome;
}

function toolCallStatus(status: ToolCallFact['status']): TimelineStatus {
  switch (status) {
    case 'completed':
      return 'ok';
    case 'failed':
    case 'cancelled':
      return 'failed';
    case 'pending':
    case 'in_progress':
      return 'unresolved';
    default:
      return 'unknown';
  }
}

function codesByLine(findings: readonly BundleFinding[]): Map<string, Map<number, string[]>> {
  const byFile = new Map<string, Map<number, string[]>>();
  for (const finding of findings) {
    let byLine = byFile.get(finding.file);
    if (!byLine) byFile.set(finding.file, (byLine = new Map()));
    const line = finding.range.start.line;
    const codes = byLine.get(line) ?? [];
    if (!codes.includes(finding.code)) codes.push(finding.code);
    byLine.set(line, codes);
  }
  return byFile;
}

function shorten(text: string): string {
  // Most titles are one short line already; tens of thousands of them are labelled per picture.
  if (text.length <= labelLength && !/^\s|\s$|\s\s|[^\S ]/.test(text)) return text;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > labelLength ? `${line.slice(0, labelLength - 1)}…` : line;
}
