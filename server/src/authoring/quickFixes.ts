/**
 * Quick fixes for writing fixture bundles. Each names exactly what it writes and is only ever applied
 * by the user: add an unresolved tool call to the timeout's pending list; record a quiescence
 * observation after the last kill attempt; end a pending tool call by the framework with unknown
 * effects, which is offered only where the rules found quiescence proven (`tool-terminalizable`).
 *
 * They are offered only in fixture bundles (authoring/fixtureBundles.ts). On a real rollout, an
 * observation nobody made or an annotation the framework never wrote would be manufactured evidence;
 * and the pending list is the harness's own claim, whose mismatch with the rows makes the reward
 * untrusted, so editing it there would erase the sign of a harness fault. The records they write say
 * `"provenance": "authored"`, so even copied into a real rollout they prove nothing.
 */
import type { DiagnosticCode } from '../engine/codes';
import type { TextRange } from '../engine/findings';
import type { RolloutBundle } from '../engine/bundle/rollout';
import { arrayOrEmpty } from '../engine/parse/jsonKind';
import { parseTreeSafely, propertyValueNode } from '../engine/parse/jsonTree';
import type { RolloutEvaluation } from '../engine/rules/evaluate';
import type { Step } from '../engine/model/actions';
import { writtenAs, writtenLastTimeout } from '../engine/model/rowReadings';
import { isTerminated, layoutOf, lineCount, lineText } from '../engine/text/lineLayout';

export interface TextEdit {
  readonly range: TextRange;
  readonly newText: string;
}

export interface QuickFix {
  readonly title: string;
  /** The diagnostic codes the fix answers. */
  readonly answers: ReadonlySet<DiagnosticCode>;
  readonly file: string;
  readonly edits: readonly TextEdit[];
}

/** A file's text, when it can be read. */
export type TextOf = (path: string) => string | undefined;

/** What a recorded observation after the last kill answers; a masked exit status stays on its exec. */
const quiescenceCodes: ReadonlySet<DiagnosticCode> = new Set([
  'quiescence-unproven',
  'quiescence-stale',
  'verifier-before-quiescence',
]);

/** For a fixture whose bundle has none on record: the fix's title names each placeholder it writes. */
const placeholderUid = 1000;
const placeholderTime = '2026-01-01T00:00:00Z';
/** What every record a fix writes says of itself (engine/rules/provenance/provenance.ts): no probe or harness made it. */
const authored = 'authored';
const pendingCodes: ReadonlySet<DiagnosticCode> = new Set(['timeout-pending-mismatch']);
const terminalizableCodes: ReadonlySet<DiagnosticCode> = new Set(['tool-terminalizable']);

/**
 * The fixes for the diagnostics `codes` found at 0-based `lines` of `file`. Only what the rollout's
 * evaluation supports is offered: nothing here guesses at evidence the rules did not read.
 */
export function quickFixesFor(
  bundle: RolloutBundle,
  evaluation: RolloutEvaluation,
  fixtureBundle: boolean,
  file: string,
  diagnostics: readonly { code: DiagnosticCode; line: number }[],
  textOf: TextOf,
): QuickFix[] {
  if (!fixtureBundle) return [];
  const fixes: QuickFix[] = [];
  const codes = new Set(diagnostics.map((diagnostic) => diagnostic.code));
  if ([...codes].some((code) => pendingCodes.has(code))) fixes.push(...addPendingIds(bundle, textOf));
  if ([...codes].some((code) => quiescenceCodes.has(code))) {
    const fix = insertObservation(bundle, evaluation, textOf);
    if (fix) fixes.push(fix);
  }
  for (const diagnostic of diagnostics) {
    if (diagnostic.code !== 'tool-terminalizable') continue;
    const fix = endByFramework(bundle, evaluation, file, diagnostic.line, textOf);
    if (fix) fixes.push(fix);
  }
  return fixes;
}

function addPendingIds(bundle: RolloutBundle, textOf: TextOf): QuickFix[] {
  const facts = bundle.facts('trajectory', 'acp-trajectory');
  const timeout = facts && writtenLastTimeout(facts);
  const file = bundle.pathOf('trajectory');
  const text = textOf(file);
  if (!facts || !timeout || text === undefined) return [];
  const listed = new Set(arrayOrEmpty(timeout.pendingIds));
  const open = facts.toolCalls.filter(
    (call) =>
      writtenAs(call, 'tool_call') &&
      (call.status === 'pending' || call.status === 'in_progress') &&
      typeof call.id === 'string' &&
      !listed.has(call.id),
  );
  const ids = [...new Set(open.map((call) => call.id as string))];
  const layout = layoutOf(text);
  if (timeout.ref.line >= lineCount(layout)) return [];
  const tree = parseTreeSafely(lineText(layout, timeout.ref.line));
  if (!tree || tree.type !== 'object') return [];
  const list = propertyValueNode(tree, 'pending_tool_call_ids');
  return ids.map((id) => {
    const title = `Add "${id}" to pending_tool_call_ids of the agent_timeout row (line ${timeout.ref.line + 1})`;
    if (list?.type === 'array') {
      const at = list.offset + list.length - 1;
      return {
        title,
        answers: pendingCodes,
        file,
        edits: [insertAt(timeout.ref.line, at, `${(list.children?.length ?? 0) > 0 ? ',' : ''}${JSON.stringify(id)}`)],
      };
    }
    return {
      title,
      answers: pendingCodes,
      file,
      edits: [
        insertAt(timeout.ref.line, tree.offset + tree.length - 1, `,"pending_tool_call_ids":[${JSON.stringify(id)}]`),
      ],
    };
  });
}

function insertObservation(bundle: RolloutBundle, evaluation: RolloutEvaluation, textOf: TextOf): QuickFix | undefined {
  const steps = evaluation.model.actions.steps;
  const lastKill = [...steps].reverse().find((step) => step.reading.events.some((event) => event.kind === 'kill'));
  const file = bundle.pathOf('actions');
  const text = textOf(file);
  if (!lastKill || text === undefined) return undefined;
  const config = bundle.facts('config', 'config')?.value;
  const sandboxUser = evaluation.model.sandboxUser;
  const user = sandboxUser.kind === 'user' ? sandboxUser.user : { name: 'agent' };
  const knownUidOfUser = user.uid ?? knownUid(steps, user.name);
  const uid = knownUidOfUser ?? placeholderUid;
  const kill = lastKill.action.record;
  // The kill's own time, else the latest time on a record before it: the observation follows the kill.
  const knownTime = [lastKill, ...steps.slice(0, steps.indexOf(lastKill)).reverse()]
    .map((step) => timeOf(step.action.record))
    .find((found) => found !== undefined);
  const resultValue = bundle.facts('result', 'result')?.value;
  const time =
    knownTime ??
    [resultValue?.['finished_at'], config?.['started_at']].find(
      (found): found is string => typeof found === 'string',
    ) ??
    placeholderTime;
  const placeholders = [
    ...(knownUidOfUser === undefined ? ['uid'] : []),
    ...(knownTime === undefined ? ['observed_at'] : []),
  ];
  const record = {
    event_type: 'SandboxUserQuiescence',
    action_id: uniqueActionId(
      steps,
      typeof kill.actionId === 'string' ? `${kill.actionId}-observed` : `observation-${lastKill.action.ref.line + 2}`,
    ),
    ...(typeof kill.phase === 'string' ? { phase: kill.phase } : {}),
    ...(typeof kill.service === 'string' ? { service: kill.service } : {}),
    status: 'ok',
    sandbox_user: user.name,
    uid,
    mode: 'observe',
    signals_sent: [],
    survivors: [],
    return_code: 0,
    observed_at: time,
    ...(knownTime === undefined ? {} : { started_at: time, finished_at: time }),
    final: true,
    provenance: authored,
  };
  const line = lastKill.action.ref.line;
  const layout = layoutOf(text);
  if (line >= lineCount(layout)) return undefined;
  const edit = isTerminated(layout, line)
    ? insertAt(line + 1, 0, `${JSON.stringify(record)}\n`)
    : insertAt(line, lineText(layout, line).length, `\n${JSON.stringify(record)}`);
  return {
    title: `Insert a quiescent SandboxUserQuiescence observation of "${user.name}" after the kill attempt on line ${line + 1}${placeholders.length > 0 ? ` (placeholders to set: ${placeholders.join(', ')})` : ''}`,
    answers: quiescenceCodes,
    file,
    edits: [edit],
  };
}

function endByFramework(
  bundle: RolloutBundle,
  evaluation: RolloutEvaluation,
  file: string,
  line: number,
  textOf: TextOf,
): QuickFix | undefined {
  const proof = evaluation.quiescence.proof;
  const facts = bundle.facts('trajectory', 'acp-trajectory');
  const call = facts?.toolCalls.find((candidate) => candidate.ref.line === line && writtenAs(candidate, 'tool_call'));
  const text = textOf(file);
  if (!proof || !call || typeof call.id !== 'string' || file !== bundle.pathOf('trajectory') || text === undefined)
    return undefined;
  const actionId = proof.action.record.actionId;
  const reference = typeof actionId === 'string' || typeof actionId === 'number' ? actionId : proof.action.ref.line + 1;
  const row = {
    type: 'tool_call_lifecycle',
    tool_call_id: call.id,
    lifecycle: 'ended_by_framework',
    effects: 'unknown',
    source: 'benchflow',
    quiescence_ref: reference,
    provenance: authored,
  };
  return {
    title: `Mark "${call.id}" as ended by the framework, effects unknown (append a tool_call_lifecycle row citing observation ${JSON.stringify(reference)})`,
    answers: terminalizableCodes,
    file,
    edits: [appendLine(text, JSON.stringify(row))],
  };
}

function knownUid(steps: readonly Step[], name: string): number | undefined {
  for (const step of steps) {
    const observation = step.action.record.quiescence;
    if (observation && observation.sandboxUser === name && typeof observation.uid === 'number') return observation.uid;
  }
  return undefined;
}

function timeOf(record: Step['action']['record']): string | undefined {
  return typeof record.finishedAt === 'string'
    ? record.finishedAt
    : typeof record.startedAt === 'string'
      ? record.startedAt
      : undefined;
}

function uniqueActionId(steps: readonly Step[], wanted: string): string {
  const taken = new Set(steps.map((step) => step.action.record.actionId).filter((id) => typeof id === 'string'));
  let id = wanted;
  for (let suffix = 2; taken.has(id); suffix++) id = `${wanted}-${suffix}`;
  return id;
}

function insertAt(line: number, character: number, newText: string): TextEdit {
  return { range: { start: { line, character }, end: { line, character } }, newText };
}

/** A new last line, after the last line with content. */
function appendLine(text: string, line: string): TextEdit {
  const layout = layoutOf(text);
  let last = lineCount(layout) - 1;
  while (last > 0 && lineText(layout, last).trim() === '') last--;
  if (last < 0) return insertAt(0, 0, line);
  const lastText = lineText(layout, last);
  return insertAt(last, lastText.length, `${lastText === '' && last === 0 ? '' : '\n'}${line}`);
}
