/**
 * Separated-verifier grading (BenchFlow #1079, gap 1): when preflight declares
 * `verifier_environment_mode: "separate"`, the action records must show the verifier service started
 * and a grading attempt ran in it with a terminal outcome. Setup execs such as
 * `mkdir -p /logs/verifier && chmod 777 /logs/verifier` are not grading. Undeclared or shared mode is
 * left as it is, and so is a mode the preflight says was not declared. A present preflight whose
 * declaration cannot be read is neither: the mode is unknown, and the rules run as if it were separate,
 * so that one flipped letter cannot turn a setup-only verifier into no verifier at all.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { BundleFinding } from '../../findings';
import { describeValue, isJsonObject, type JsonObject } from '../../parse/jsonKind';
import { shapedLike } from '../../schema/knownKeys';
import type { Place, RuleContext } from '../context';
import {
  readingNote,
  readingWhere,
  verifierService,
  type ActionSequenceLists,
  type RecordReading,
} from '../../model/actions';
import { possibly } from '../../model/certainty';

/** Where the declaration sits in preflight.json, and the modes BenchFlow writes. */
const factsPath = ['report', 'task_binding', 'facts'] as const;
const modeKey = 'verifier_environment_mode';
const declaredKey = 'verifier_environment_mode_declared';
const knownModes: readonly unknown[] = ['separate', 'shared'];

type Declaration =
  | { readonly kind: 'separate'; readonly place: Place }
  | { readonly kind: 'none' }
  | { readonly kind: 'unreadable'; readonly place: Place; readonly why: string };

/**
 * Separate mode is read only where it is explicit: `verifier_environment_mode: "separate"`, unless the
 * same facts say `verifier_environment_mode_declared: false` (the mode was defaulted, not declared, as
 * in BenchFlow #1050's fixture). Any other value of that flag, or none, keeps the fail-closed reading. A
 * preflight without the keys declares nothing; one whose keys or values are damaged is unreadable.
 */
function declarationOf(context: RuleContext): Declaration {
  const file = context.bundle.file('preflight');
  if (!file) return { kind: 'none' };
  const path = context.bundle.pathOf('preflight');
  const document = context.bundle.facts('preflight', 'preflight');
  if (!document?.value)
    return {
      kind: 'unreadable',
      place: context.atStart(path),
      why: file.ioError ? `could not be read (${file.ioError})` : 'is not a JSON object',
    };
  let facts: JsonObject = document.value;
  for (let depth = 0; depth < factsPath.length; depth++) {
    const key = factsPath[depth]!;
    const at = factsPath.slice(0, depth);
    if (!Object.prototype.hasOwnProperty.call(facts, key)) {
      // Above the facts a look-alike beside the real key hides nothing, so only a missing key is looked for.
      const lookAlike = Object.keys(facts).find((other) => shapedLike(other, key));
      // A preflight without a report is another shape, which declares nothing; a report whose path to
      // the facts is cut short is one whose declaration is lost, and that is not one that has none.
      if (lookAlike === undefined && depth === 0) return { kind: 'none' };
      if (lookAlike === undefined)
        return {
          kind: 'unreadable',
          place: context.inDocument(path, document, at),
          why: `has ${at.join('.')} without ${describeValue(key)}, where the declaration is read`,
        };
      return {
        kind: 'unreadable',
        place: context.inDocument(path, document, [...at, lookAlike], 'key'),
        why: `has ${describeValue(lookAlike)} where ${describeValue(key)} is read`,
      };
    }
    const next = facts[key];
    if (!isJsonObject(next))
      return {
        kind: 'unreadable',
        place: context.inDocument(path, document, [...at, key]),
        why: `has ${describeValue(next)} as ${[...at, key].join('.')}, not an object`,
      };
    facts = next;
  }
  for (const name of [modeKey, declaredKey]) {
    const lookAlike = Object.keys(facts).find((key) => key !== modeKey && key !== declaredKey && shapedLike(key, name));
    if (lookAlike !== undefined)
      return {
        kind: 'unreadable',
        place: context.inDocument(path, document, [...factsPath, lookAlike], 'key'),
        why: `has the key ${describeValue(lookAlike)}, which is shaped like ${name} but is not it`,
      };
  }
  // Facts are values bound to the task; an object or array under a key of its own, where no mode is
  // read, is no fact this reader knows, and may be what is left of a declaration.
  const nested = Object.prototype.hasOwnProperty.call(facts, modeKey)
    ? undefined
    : Object.keys(facts).find((key) => key !== declaredKey && typeof facts[key] === 'object' && facts[key] !== null);
  if (nested !== undefined)
    return {
      kind: 'unreadable',
      place: context.inDocument(path, document, [...factsPath, nested], 'key'),
      why: `has ${describeValue(facts[nested])} under ${describeValue(nested)} among the facts and no mode`,
    };
  const mode = facts[modeKey];
  const modePlace = context.inDocument(path, document, [...factsPath, modeKey]);
  if (Object.prototype.hasOwnProperty.call(facts, modeKey) && !knownModes.includes(mode))
    return {
      kind: 'unreadable',
      place: modePlace,
      why: `declares the mode ${describeValue(mode)}, which is neither "separate" nor "shared"`,
    };
  return mode === 'separate' && facts[declaredKey] !== false
    ? { kind: 'separate', place: modePlace }
    : { kind: 'none' };
}

/** Returns the findings that show a failed precondition (for untrusted-reward). */
export function checkSeparateVerifier(context: RuleContext, actions: ActionSequenceLists): BundleFinding[] {
  const read = declarationOf(context);
  if (read.kind === 'none') return [];
  if (read.kind === 'unreadable') {
    context.report(
      'verifier-declaration-unreadable',
      read.place,
      `${rolloutFiles.preflight} ${read.why}: whether the verifier is separate cannot be read, so it is checked as if it were separate (a damaged declaration is not "shared").`,
    );
  }
  // What the findings below rest on, said once for both cases.
  const claim =
    read.kind === 'separate'
      ? 'A separate verifier is declared'
      : 'A separate verifier may be declared (the declaration cannot be read)';
  const failures: BundleFinding[] = [];
  const declaration = read.place;
  const actionsFile = context.bundle.file('actions');
  const file = context.bundle.pathOf('actions');
  const { verifierExecs: inService, gradings } = actions;
  const started = actions.verifierStart;
  if (!actionsFile?.report) {
    context.report(
      'verifier-evidence-missing',
      declaration,
      `${claim}, but ${rolloutFiles.actionRecords} ${actionsFile ? 'could not be read' : 'is missing'}: nothing shows where grading ran.`,
    );
    return failures;
  }
  if (!started) {
    context.report(
      'verifier-evidence-missing',
      declaration,
      `${claim}, but no successful StartBenchGuardVerifierService is recorded in ${rolloutFiles.actionRecords}.`,
    );
  }

  // Setup-only under some reading: every exec surely in the service may be setup-only, and some exec that may be
  // in the service may be setup-only (so there is a reading with at least one exec there, all of them setup).
  const maybeSetup = inService.filter((step) => possibly(step.reading.setupOnly));
  if (
    maybeSetup.length > 0 &&
    inService.every((step) => step.reading.verifierExec !== 'yes' || possibly(step.reading.setupOnly))
  ) {
    const uncertain = maybeSetup.find(
      (step) => step.reading.setupOnly !== 'yes' || step.reading.verifierExec !== 'yes',
    );
    failures.push(
      context.report(
        'verifier-setup-only',
        declaration,
        `${claim}, but every exec in ${verifierService} only prepares or cleans (${maybeSetup.length} setup exec${maybeSetup.length === 1 ? '' : 's'}): no grading attempt ran there.`,
        {
          related: maybeSetup.map((step) =>
            context.related(context.inRecord(file, step.action.ref, ['command_preview']), 'a setup-only exec'),
          ),
          holdsWhen:
            uncertain &&
            readingNote(
              uncertain,
              (reading) => reading.kind === 'exec' && reading.inVerifierService && reading.setupOnly,
            ),
        },
      ),
    );
  }

  for (const step of gradings) {
    const { record } = step.action;
    const place = context.inRecord(file, step.action.ref, ['service']);
    const asGrading = (holds: (reading: RecordReading) => boolean) =>
      readingNote(step, (reading) => reading.grading && holds(reading));
    if (
      step.reading.verifierExec !== 'yes' &&
      readingWhere(step, (reading) => reading.grading && !reading.inVerifierService) !== undefined
    ) {
      context.report(
        'verifier-grading-unproven',
        place,
        `This grading attempt ran ${record.service === undefined ? 'in no named service' : `in ${describeValue(record.service)}`}, not in the separate verifier ${verifierService}.`,
        { holdsWhen: asGrading((reading) => !reading.inVerifierService) },
      );
    } else if (!started || step.action.ref.line < started.action.ref.line) {
      context.report(
        'verifier-grading-unproven',
        place,
        `This grading attempt ran before ${verifierService} was started${started ? ` (line ${started.action.ref.line + 1})` : ' (no start is recorded)'}.`,
        { holdsWhen: asGrading(() => true) },
      );
    } else if (!step.reading.transportOk || !record.hasReturnCode) {
      // Any return code is an outcome (a test suite that fails still produces a valid reward of 0): only a missing one is unproven.
      context.report(
        'verifier-grading-unproven',
        context.inRecord(file, step.action.ref, ['status']),
        `This grading attempt has no terminal outcome (${record.status === undefined ? 'no status' : `status ${describeValue(record.status)}`}, ${record.hasReturnCode ? `return_code ${describeValue(record.returnCode)}` : 'no return_code'}).`,
        { holdsWhen: asGrading(() => true) },
      );
    }
  }
  // Nothing may have run in the started service: no grading attempt and no exec there is certain.
  if (
    started &&
    gradings.every((step) => step.reading.grading !== 'yes') &&
    inService.every((step) => step.reading.verifierExec !== 'yes')
  ) {
    context.report(
      'verifier-grading-unproven',
      context.inRecord(file, started.action.ref, ['event_type']),
      `${verifierService} was started, but no grading attempt ran in it: the verifier may have crashed after starting, and that cannot be told from completed grading.`,
      {
        holdsWhen:
          gradings.length + inService.length > 0
            ? `the action records that may have graded or run in ${verifierService} are read as neither`
            : undefined,
      },
    );
  }
  return failures;
}
