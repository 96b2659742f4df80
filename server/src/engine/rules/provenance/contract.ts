/** The code of the provenance rule (provenance.ts). */
import type { CodeContracts } from '../../codeContract';

export const provenanceCodes = {
  'evidence-authored': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'An observation or lifecycle annotation says it was authored (by a quick fix or the fixture scaffold), not recorded by a probe or the harness, in a bundle that is not a fixture; or its provenance is none the rules know. It proves nothing.',
    description:
      'A `SandboxUserQuiescence` observation, an observing `SandboxExec` or a `tool_call_lifecycle` row whose `provenance` is `authored` (written by a quick fix or the fixture scaffold) in a bundle that is not a fixture, or whose `provenance` is none the rules know: it proves nothing, and the rules read the rollout without it.',
    readme:
      'A `SandboxUserQuiescence` observation or `tool_call_lifecycle` annotation with `"provenance": "authored"` (written by a quick fix or the fixture scaffold, not by a probe or the harness) in a bundle that is not a fixture ([Fixture bundles](#fixture-bundles)), or with a `provenance` none the rules know (`probe`, `authored`). It proves nothing: the rules read it as no observation and no annotation. In a fixture an authored record counts, so fixtures exercise every rule.',
  },
} as const satisfies CodeContracts;
