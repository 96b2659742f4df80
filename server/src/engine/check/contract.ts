/**
 * The codes a file earns on its own, before the rules read its rollout as a whole (raised by the checks
 * here and in engine/schema/; `artifact-outside-bundle` and `artifact-not-regular-file` also by the rules,
 * for a verifier reward file),
 * and the two that concern the check itself: `internal-error` (cli/checkRun.ts, lsp/documentValidator.ts)
 * and `problems-limited` (collector.ts, lsp/documentValidator.ts).
 */
import type { CodeContracts } from '../codeContract';

export const checkCodes = {
  'jsonl-syntax': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A JSONL line is not valid JSON.',
    description:
      'A JSONL line is not valid JSON. The range is the first error on the line (a trailing comma is marked on the comma). The other lines are still checked.',
  },
  'jsonl-partial-line': {
    severity: 'information',
    effect: 'incomplete',
    summary: 'The last line has no newline and is not valid JSON yet: a run may still be writing the file.',
    description: 'The last line has no newline and is not valid JSON yet: a run may still be writing the file.',
  },
  'json-syntax': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A JSON artifact is not valid JSON.',
    description: 'A JSON artifact is not valid JSON.',
  },
  'record-not-object': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A record (a JSONL line or a JSON artifact) is valid JSON but not an object.',
    description: 'A JSONL line, or a JSON artifact, is valid JSON but not an object.',
  },
  schema: {
    severity: 'error',
    effect: 'incomplete',
    summary: "A record does not match its artifact's JSON Schema.",
    description:
      "A record breaks its artifact's schema, or carries a damaged key or ACP row type. The range is the offending key or value; the message names the field, what was expected and what was found. A missing required property is marked on the record's `type`/`event_type`, or on the key of the object that lacks it.",
    readme:
      "A record breaks its artifact's schema, or carries a damaged key or ACP row type ([above](#what-it-checks)). The range is the offending key or value; the message names the field, what was expected and what was found. A missing required property is marked on the record's `type`/`event_type`, or on the key of the object that lacks it.",
  },
  'duplicate-key': {
    severity: 'warning',
    effect: 'incomplete',
    summary:
      'A key is written twice in one object: with two values, neither is taken, and the field is read as unknown.',
    description:
      "A key written twice in one JSON object, marked on the repeat. Readers differ on which occurrence counts (JSON.parse and Python's json take the last), so when the values differ the field is read as unknown, as a value no reading can take for either (a rule that needs it known to trust is not satisfied; a rule that distrusts fires on what it may have been); with the same value it is read as that value.",
  },
  'number-ambiguous': {
    severity: 'information',
    effect: 'incomplete',
    summary:
      'A number is not written as any writer writes one (1e-400, -0, beyond 2^53, 1.0e0), so readers may differ on it: it is read as unknown.',
    description:
      "A JSON number whose text is not how a writer writes the value it reads as: BenchFlow's Python json writes an integer in plain digits and a float as its repr (`1.0`, `1e-05`), the probe as JSON.stringify does. `1e-400` reads as 0 to JSON.parse and is no exit status to a shell, `9007199254740993` reads as 9007199254740992, `-0` is no integer. The field is read as unknown, as a value of no type its schema allows.",
  },
  'artifact-empty': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'An artifact file holds no records (an error for a JSON artifact, which must hold an object).',
    description: 'A JSONL artifact holds no records. An empty JSON artifact is an error: it must hold an object.',
  },
  'not-utf8': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A file contains bytes that are not valid UTF-8.',
    description:
      'A file contains bytes that are not UTF-8, marked at the first bad byte of the line (the CLI reads bytes, so it sees this exactly).',
  },
  'record-too-large': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A single record is larger than the engine will parse.',
    description:
      'A line (or a JSON artifact) over 64 MiB, reported by size and not parsed: past 64 MiB its bytes are counted, not kept, so memory stays bounded however long a line is.',
  },
  'artifact-too-large': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'An artifact file is larger than the engine reads: it is read up to 4 GiB, and the rest counts for nothing.',
    description:
      'A JSONL artifact over 4 GiB (when opened, or grown past it while read) is read up to 4 GiB and no further, so that a huge or sparse file costs bounded time; marked on the line the reading stopped in. Nothing after it is checked or counts as evidence, so the rollout is `incomplete`.',
  },
  'artifact-outside-bundle': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An artifact path resolves, through a symbolic link, outside its rollout folder, so it is not read.',
    description:
      'An artifact path that resolves, through a symbolic link, outside its rollout folder: it is not read and nothing of it is quoted.',
  },
  'artifact-not-regular-file': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      "An artifact's name in the rollout is a FIFO, socket, device or dangling symbolic link, not a regular file, so it is not read.",
    description:
      "A file of the rollout's layout (an artifact, or the verifier's `reward.txt` or `reward.json`) that is there but is a FIFO, a socket, a device, or a symbolic link that leads to nothing (its target is missing, or links loop): it is never opened (a FIFO would block, a device may act on open), and the rules read it as present but unreadable, as a file they cannot parse, never as absent.",
  },
  'internal-error': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'The checker failed on this rollout or document; its verdict is incomplete, and every other rollout is still checked in full.',
    description:
      'The checker failed on this rollout (CLI) or document (server); that rollout is `incomplete`, every other one is reported in full.',
  },
  'problems-limited': {
    severity: 'information',
    effect: 'none',
    summary: 'More problems were found in the file than the configured maximum; the rest are counted, not listed.',
    description:
      'More problems than `rolloutEvidence.maxNumberOfProblems` (`--max-problems`) were found in a file; says how many were left out.',
  },
} as const satisfies CodeContracts;
