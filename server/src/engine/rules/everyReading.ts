/**
 * The rules that stand on the action timeline, run under every reading of the records whose kind is
 * unknown, so that damaged evidence fails closed: a record with a flipped letter in its event_type or
 * phase may be any kind, and the rollout must not be judged better than under any of them. The rules run
 * on the timeline as written, then on each candidate timeline in a context of their own; what a
 * candidate finds and the written reading does not is added once, saying under which reading it holds.
 */
import type { BundleFinding } from '../findings';
import { RuleContext } from './context';
import { checkQuiescence, type QuiescenceResult } from './quiescence';
import { checkExecRecords, type SandboxUserState, type Timeline, type TimelineLists } from './timeline';
import { checkSeparateVerifier } from './verifier';

export interface TimelineRulesResult {
  /** Quiescence as every reading concludes it: a proof only when each reading proves it by the same record. */
  readonly quiescence: QuiescenceResult;
  /** The separate-verifier findings that show a failed precondition (for untrusted-reward), under any reading. */
  readonly verifierFailures: readonly BundleFinding[];
}

export function checkUnderEveryReading(context: RuleContext, timeline: Timeline, sandboxUser: SandboxUserState): TimelineRulesResult {
  const written = runTimelineRules(context, timeline, sandboxUser);
  if (timeline.candidates.length === 0) return written;
  const union = new FindingUnion(context.findings);
  const quiescenceFailures = new Set(written.quiescence.failures);
  const verifierFailures = new Set(written.verifierFailures);
  let sameProof = true;
  for (const candidate of timeline.candidates) {
    const scratch = new RuleContext(context.bundle, context.options, context.caches);
    const result = runTimelineRules(scratch, candidate, sandboxUser);
    const plural = timeline.unknownKinds.length > 1;
    const kept = union.addAll(scratch.findings, `This holds when the action record${plural ? 's' : ''} of unknown kind ${plural ? 'are' : 'is'} read as ${candidate.reading}.`);
    for (const failure of result.quiescence.failures) quiescenceFailures.add(kept.get(failure)!);
    for (const failure of result.verifierFailures) verifierFailures.add(kept.get(failure)!);
    if (result.quiescence.proof?.action !== written.quiescence.proof?.action) sameProof = false;
  }
  const quiescence: QuiescenceResult = { applies: written.quiescence.applies, failures: [...quiescenceFailures], ...(sameProof && written.quiescence.proof ? { proof: written.quiescence.proof } : {}) };
  return { quiescence, verifierFailures: [...verifierFailures] };
}

function runTimelineRules(context: RuleContext, timeline: TimelineLists, sandboxUser: SandboxUserState): TimelineRulesResult {
  checkExecRecords(context, timeline);
  const quiescence = checkQuiescence(context, timeline, sandboxUser);
  return { quiescence, verifierFailures: checkSeparateVerifier(context, timeline) };
}

/** The findings of a rollout, each once: the same code, place and message from another reading adds nothing. */
class FindingUnion {
  private readonly byKey = new Map<string, BundleFinding>();

  constructor(private readonly findings: BundleFinding[]) {
    for (const finding of findings) this.byKey.set(keyOf(finding), finding);
  }

  /** Adds what is new, with `note` after its message; returns, for each finding given, the one kept. */
  addAll(findings: readonly BundleFinding[], note: string): Map<BundleFinding, BundleFinding> {
    const kept = new Map<BundleFinding, BundleFinding>();
    for (const finding of findings) {
      const key = keyOf(finding);
      let existing = this.byKey.get(key);
      if (!existing) {
        existing = { ...finding, message: `${finding.message} (${note})` };
        this.byKey.set(key, existing);
        this.findings.push(existing);
      }
      kept.set(finding, existing);
    }
    return kept;
  }
}

function keyOf(finding: BundleFinding): string {
  const { start, end } = finding.range;
  return [finding.code, finding.file, start.line, start.character, end.line, end.character, finding.message].join('\u0000');
}
