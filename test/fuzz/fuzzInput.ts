/**
 * One fuzz input, run and judged: the property's four rules (no crash, at most 2 s of CPU for an input
 * under 1 MB, RSS at most 1 GB, no damaging mutation that raises the verdict), and for a failure a
 * minimal reproducer.
 */
import type { SeededRandom } from '../support/random';
import type { FuzzWorkspace, MaterialisedBundle, TargetFile } from './engineRun';
import { verdictLevel } from './engineRun';
import { inputRandom, type FuzzSettings } from './inputs';
import type { DamageVerdict } from './damage';
import { mutate, type FileShape, type Mutation } from './mutations';
import { describeEdit, editedLines, shrinkEdit } from './shrink';

export const limits = {
  /** CPU per input, for inputs (the mutated file) under `cpuRuleBytes`. */
  cpuMs: 2000,
  cpuRuleBytes: 1 << 20,
  rssBytes: 1 << 30,
} as const;

/**
 * `untrust-lost` is untrusted → incomplete with the damaged record still readable: the rollout stays
 * uncountable, but its untrust should have been kept. It fails the property like a raise to a countable
 * verdict, and is named apart so that a report says which happened.
 */
export type FailureKind = 'crash' | 'cpu' | 'rss' | 'verdict-raised' | 'untrust-lost' | 'hang' | 'worker-died';

export interface Failure {
  readonly kind: FailureKind;
  readonly index: number;
  readonly fixture: string;
  readonly file: string;
  readonly operator: string;
  readonly mutation: string;
  /** The error, the CPU time, or the verdicts and why the mutation is damaging. */
  readonly detail: string;
  /** Failures of one class share it: the lead routes a class, not an input. */
  readonly classKey: string;
  /** The smallest edit found that still fails, as a diff against the fixture's file. */
  readonly reproducer: string;
}

export interface InputResult {
  readonly operator: string;
  readonly damaging: boolean;
  /** "before → after" for a damaging input whose verdict changed. */
  readonly transition?: string;
  readonly cpuMs: number;
  readonly bytes: number;
  readonly failure?: Failure;
}

/**
 * The input's bundle, file and mutation, drawn from its own generator. With one operator chosen, files
 * it does not apply to (hostile shell outside the action records) are passed over, a few times.
 */
export function drawInput(
  workspace: FuzzWorkspace,
  random: SeededRandom,
  operator?: string,
): { bundle: MaterialisedBundle; target: TargetFile; mutation: Mutation } {
  for (let attempt = 0; ; attempt++) {
    const bundle = workspace.bundle(random.below(workspace.corpusSize));
    const target = bundle.targets[random.below(bundle.targets.length)]!;
    const mutation = mutate(random, target, operator);
    if (!operator || mutation.operator === operator || attempt >= 20) return { bundle, target, mutation };
  }
}

/** Digits and quoted values vary within one class of failure; the rest names it. */
export function normalised(text: string): string {
  return text
    .split('\n')[0]!
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 200);
}

type Judgement = { readonly kind: FailureKind; readonly detail: string; readonly cause: string } | undefined;

/**
 * A file made into another shape is damaged: one that is not a regular file leaves nothing of it to
 * read; a line that never ends within the engine's bound leaves the records before it readable, but
 * nothing of a JSON document.
 */
function shapeDamage(target: TargetFile, shape: FileShape): DamageVerdict {
  if (shape.kind !== 'unending-line')
    return { damaging: true, reason: `the file is a ${shape.kind}`, unreadable: true };
  return {
    damaging: true,
    reason: 'a line that never ends within the bound',
    ...(target.format === 'json' ? { unreadable: true } : {}),
  };
}

function judge(
  workspace: FuzzWorkspace,
  bundle: MaterialisedBundle,
  target: TargetFile,
  bytes: Buffer,
  shape?: FileShape,
): { judgement: Judgement; damaging: boolean; transition?: string; cpuMs: number } {
  const outcome = workspace.check(bundle, target, bytes, shape);
  const damage = shape ? shapeDamage(target, shape) : target.damage.classify(target.bytes, bytes);
  if (!outcome.ok)
    return {
      judgement: { kind: 'crash', detail: outcome.error, cause: outcome.error },
      damaging: damage.damaging,
      cpuMs: outcome.cpuMs,
    };
  if (outcome.internalErrors.length > 0) {
    const detail = `internal-error finding: ${outcome.internalErrors[0]}`;
    return { judgement: { kind: 'crash', detail, cause: detail }, damaging: damage.damaging, cpuMs: outcome.cpuMs };
  }
  const transition =
    damage.damaging && outcome.verdict !== bundle.verdict ? `${bundle.verdict} → ${outcome.verdict}` : undefined;
  if (bytes.length < limits.cpuRuleBytes && outcome.cpuMs > limits.cpuMs) {
    const detail = `${Math.round(outcome.cpuMs)} ms of CPU for a ${bytes.length}-byte file`;
    return {
      judgement: { kind: 'cpu', detail, cause: 'over the CPU bound' },
      damaging: damage.damaging,
      cpuMs: outcome.cpuMs,
      ...(transition ? { transition } : {}),
    };
  }
  if (damage.damaging && verdictLevel[outcome.verdict] > verdictLevel[bundle.verdict]) {
    const carriedUntrust = bundle.verdict === 'untrusted' && damagesUntrustedEvidence(bundle, target, bytes, shape);
    // The one raise the property allows: the only record that showed the failed precondition can no
    // longer be read at all, so nothing is left to read the untrust from, and the rollout is still not
    // countable. A damaged record that can still be read must keep its untrust (damaged keys, kinds).
    if (carriedUntrust && damage.unreadable && outcome.verdict === 'incomplete') {
      return {
        judgement: undefined,
        damaging: true,
        cpuMs: outcome.cpuMs,
        transition: `${transition!} (its witness unreadable)`,
      };
    }
    const carried = carriedUntrust ? ' (the damaged record carried the untrusted finding)' : '';
    const detail = `verdict ${bundle.verdict} → ${outcome.verdict}${carried}; damaging: ${damage.reason}`;
    const kind: FailureKind =
      bundle.verdict === 'untrusted' && outcome.verdict === 'incomplete' ? 'untrust-lost' : 'verdict-raised';
    return {
      judgement: { kind, detail, cause: `${bundle.verdict} → ${outcome.verdict}${carried}: ${damage.reason}` },
      damaging: true,
      cpuMs: outcome.cpuMs,
      transition: transition!,
    };
  }
  return {
    judgement: undefined,
    damaging: damage.damaging,
    cpuMs: outcome.cpuMs,
    ...(transition ? { transition } : {}),
  };
}

/** Whether the edit touches a record (a JSON document as a whole, or a JSONL line) on which, or on whose evidence, an untrusted finding sat. */
function damagesUntrustedEvidence(
  bundle: MaterialisedBundle,
  target: TargetFile,
  bytes: Buffer,
  shape: FileShape | undefined,
): boolean {
  const lines = bundle.untrustedEvidence.get(target.path);
  if (!lines) return false;
  if (target.format === 'json') return true;
  // A file that is not a regular file takes every record with it; a line added after them, none.
  if (shape) return shape.kind !== 'unending-line';
  const { firstLine, lastLine } = editedLines(target.bytes, bytes);
  return [...lines].some((line) => line >= firstLine && line <= lastLine);
}

/**
 * Runs input `index`. A failure is shrunk to a minimal reproducer only when `firstOfClass` says it is
 * the first of its class (the report prints one per class), since shrinking costs up to 80 checks.
 */
export function runInput(
  workspace: FuzzWorkspace,
  settings: FuzzSettings,
  index: number,
  firstOfClass: (classKey: string) => boolean = () => true,
): InputResult {
  const { bundle, target, mutation } = drawInput(workspace, inputRandom(settings.seed, index), settings.operator);
  const result = judge(workspace, bundle, target, mutation.bytes, mutation.shape);
  const base = {
    operator: mutation.operator,
    damaging: result.damaging,
    cpuMs: result.cpuMs,
    bytes: mutation.bytes.length,
    ...(result.transition ? { transition: result.transition } : {}),
  };
  if (!result.judgement) return base;
  const failed = result.judgement;
  const unshrunk = failureOf(failed.kind, index, bundle, target, mutation, failed.detail, normalised(failed.cause), '');
  // A file's shape has no smaller edit: its failure is reproduced by the shape itself.
  const minimal =
    !firstOfClass(unshrunk.classKey) || mutation.shape
      ? mutation.bytes
      : shrinkEdit(target.bytes, mutation.bytes, (candidate) => {
          const again = judge(workspace, bundle, target, candidate).judgement;
          return again?.kind === failed.kind && normalised(again.cause) === normalised(failed.cause);
        });
  return { ...base, failure: { ...unshrunk, reproducer: describeEdit(target.name, target.bytes, minimal) } };
}

export function failureOf(
  kind: FailureKind,
  index: number,
  bundle: MaterialisedBundle,
  target: TargetFile,
  mutation: Mutation,
  detail: string,
  cause: string,
  reproducer: string,
): Failure {
  return {
    kind,
    index,
    fixture: bundle.corpus.name,
    file: target.name,
    operator: mutation.operator,
    mutation: mutation.description,
    detail,
    classKey: `${kind} | ${target.name} | ${cause}`,
    reproducer,
  };
}
