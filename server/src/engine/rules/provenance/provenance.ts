/**
 * Who wrote a record that proves something: a `SandboxUserQuiescence` observation or a
 * `tool_call_lifecycle` annotation. A record our live probe wrote says `"provenance": "probe"`; one a
 * quick fix or the fixture scaffold wrote says `"authored"`: nothing observed anything, so outside a
 * fixture it proves nothing (a tool whose purpose is to say whether evidence is real must never
 * manufacture it). A record without the field (BenchGuard's, BenchFlow's, or one written by hand) is
 * judged on what it says, as before the field existed. A value none of these is damage, and fails
 * closed: it proves nothing anywhere.
 */
import { describeValue } from '../../parse/jsonKind';
import type { RecordRef } from '../../facts/facts';
import type { RuleContext } from '../context';
import type { Provenance } from '../../model/provenance';

/** How to get real evidence instead, for every message that turns an authored record or a gap in the proof away. */
export const howToObserve =
  'Run the live probe on the sandbox (the command "Rollout Evidence: Probe Sandbox-User Quiescence…", or `rollout-evidence probe`) and record its observation, or fix the harness so that it records a checked observation after its last kill.';

/** How to get a real annotation instead: only the framework can say it ended a call. */
export const howToAnnotate =
  'The framework (BenchFlow) writes this annotation itself, after a checked observation proved quiescence; fix the harness so that it does.';

/**
 * Reports a record whose provenance keeps it from proving anything here. `what` names the record
 * ("This action record"); `howToProduce` says how to get real evidence instead; `holdsWhen`, the reading of
 * damaged evidence under which the record is one at all, when it is not so as written.
 */
export function reportUncountedProvenance(
  context: RuleContext,
  file: string,
  ref: RecordRef,
  record: { provenance: Provenance; value: unknown; known: readonly Provenance[] },
  what: string,
  howToProduce: string,
  holdsWhen?: string,
): void {
  const place = context.inRecord(file, ref, ['provenance']);
  const { provenance, value, known } = record;
  if (provenance === 'authored') {
    context.report(
      'evidence-authored',
      place,
      `${what} was authored (by a quick fix or the fixture scaffold), not recorded by a probe or the harness, and this bundle is not a fixture: it proves nothing, and the rules read it as absent. ${howToProduce} Authored records count only in fixture bundles (rolloutEvidence.fixtureFolders, or a bundle written by New Fixture Bundle).`,
      { holdsWhen },
    );
  } else {
    context.report(
      'evidence-authored',
      place,
      `${what} has provenance ${describeValue(value)}, none the rules know (${known.join(', ')}): who wrote it is unknown, so it proves nothing, and the rules read it as absent.`,
      { holdsWhen },
    );
  }
}
