/**
 * Separated-verifier grading (BenchFlow #1079, gap 1): when preflight declares
 * `verifier_environment_mode: "separate"`, the action records must show the verifier service started
 * and a grading attempt ran in it with a terminal outcome. Setup execs such as
 * `mkdir -p /logs/verifier && chmod 777 /logs/verifier` are not grading. Undeclared or shared mode is
 * left as it is, and so is a mode the preflight says was not declared.
 */
import type { BundleFinding } from '../findings';
import { describeValue, isJsonObject } from '../parse/jsonKind';
import type { Place, RuleContext } from './context';
import { verifierService, type Timeline } from './timeline';

/**
 * Separate mode is read only where it is explicit: `verifier_environment_mode: "separate"`, unless the
 * same facts say `verifier_environment_mode_declared: false` (the mode was defaulted, not declared, as
 * in BenchFlow #1050's fixture). Any other value of that flag, or none, keeps the fail-closed reading.
 */
function separateVerifierDeclared(context: RuleContext): boolean {
  const preflight = context.bundle.facts('preflight', 'preflight')?.value;
  const report = preflight?.['report'];
  const binding = isJsonObject(report) ? report['task_binding'] : undefined;
  const facts = isJsonObject(binding) ? binding['facts'] : undefined;
  return isJsonObject(facts) && facts['verifier_environment_mode'] === 'separate' && facts['verifier_environment_mode_declared'] !== false;
}

/** Returns the findings that show a failed precondition (for untrusted-reward). */
export function checkSeparateVerifier(context: RuleContext, timeline: Timeline): BundleFinding[] {
  if (!separateVerifierDeclared(context)) return [];
  const failures: BundleFinding[] = [];
  const declaration = declarationPlace(context);
  const actionsFile = context.bundle.file('actions');
  const file = context.bundle.pathOf('actions');
  const { verifierExecs: inService, gradings } = timeline;
  const started = timeline.verifierStart;
  if (!actionsFile?.report) {
    context.report('verifier-evidence-missing', declaration, `A separate verifier is declared, but benchguard/action_records.jsonl ${actionsFile ? 'could not be read' : 'is missing'}: nothing shows where grading ran.`);
    return failures;
  }
  if (!started) {
    context.report('verifier-evidence-missing', declaration, `A separate verifier is declared, but no successful StartBenchGuardVerifierService is recorded in benchguard/action_records.jsonl.`);
  }

  if (inService.length > 0 && inService.every((step) => step.reading.setupOnly)) {
    failures.push(
      context.report('verifier-setup-only', declaration, `A separate verifier is declared, but every exec in ${verifierService} only prepares or cleans (${inService.length} setup exec${inService.length === 1 ? '' : 's'}): no grading attempt ran there.`, {
        related: inService.map((step) => context.related(context.inRecord(file, step.action.ref, ['command_preview']), 'a setup-only exec')),
      }),
    );
  }

  for (const step of gradings) {
    const { record } = step.action;
    const place = context.inRecord(file, step.action.ref, ['service']);
    if (!step.reading.inVerifierService) {
      context.report('verifier-grading-unproven', place, `This grading attempt ran ${record.service === undefined ? 'in no named service' : `in ${describeValue(record.service)}`}, not in the declared separate verifier ${verifierService}.`);
    } else if (!started || step.action.ref.line < started.action.ref.line) {
      context.report('verifier-grading-unproven', place, `This grading attempt ran before ${verifierService} was started${started ? ` (line ${started.action.ref.line + 1})` : ' (no start is recorded)'}.`);
    } else if (!step.reading.transportOk || !record.hasReturnCode) {
      // Any return code is an outcome (a test suite that fails still produces a valid reward of 0): only a missing one is unproven.
      context.report('verifier-grading-unproven', context.inRecord(file, step.action.ref, ['status']), `This grading attempt has no terminal outcome (${record.status === undefined ? 'no status' : `status ${describeValue(record.status)}`}, ${record.hasReturnCode ? `return_code ${describeValue(record.returnCode)}` : 'no return_code'}).`);
    }
  }
  if (gradings.length === 0 && started && inService.length === 0) {
    context.report('verifier-grading-unproven', context.inRecord(file, started.action.ref, ['event_type']), `${verifierService} was started, but no grading attempt ran in it: the verifier may have crashed after starting, and that cannot be told from completed grading.`);
  }
  return failures;
}

function declarationPlace(context: RuleContext): Place {
  return context.inDocument(context.bundle.pathOf('preflight'), context.bundle.facts('preflight', 'preflight'), ['report', 'task_binding', 'facts', 'verifier_environment_mode']);
}
