/**
 * The diagnostic codes. They are a public contract (CLI JSON, SARIF rule ids, README), so a code is
 * never renamed or reused; a test checks that README documents each one.
 */
import type { Severity } from './findings';

export interface CodeInfo {
  readonly severity: Severity;
  /** One sentence, used as the SARIF rule description. */
  readonly summary: string;
}

export const diagnosticCodes = {
  'jsonl-syntax': { severity: 'error', summary: 'A JSONL line is not valid JSON.' },
  'jsonl-partial-line': {
    severity: 'information',
    summary: 'The last line has no newline and is not valid JSON yet: a run may still be writing the file.',
  },
  'json-syntax': { severity: 'error', summary: 'A JSON artifact is not valid JSON.' },
  'record-not-object': { severity: 'error', summary: 'A record (a JSONL line or a JSON artifact) is valid JSON but not an object.' },
  schema: { severity: 'error', summary: "A record does not match its artifact's JSON Schema." },
  'artifact-empty': {
    severity: 'warning',
    summary: 'An artifact file holds no records (an error for a JSON artifact, which must hold an object).',
  },
  'not-utf8': { severity: 'error', summary: 'A file contains bytes that are not valid UTF-8.' },
  'record-too-large': { severity: 'error', summary: 'A single record is larger than the engine will parse.' },
  'problems-limited': {
    severity: 'information',
    summary: 'More problems were found in the file than the configured maximum; the rest are counted, not listed.',
  },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof diagnosticCodes;

export const allDiagnosticCodes = Object.keys(diagnosticCodes) as DiagnosticCode[];
