/**
 * The diagnostic codes, assembled from the contracts declared beside the checks that raise them
 * (codeContract.ts says where). They are a public contract (CLI JSON, SARIF rule ids, README), so a code
 * is never renamed or reused; README's code table is generated from them (`npm run codes`), and a test
 * fails when it is not current.
 *
 * The order is public too: it is SARIF's rule order and the order in which a verdict's cause names its
 * codes. A contract's codes keep their place in it (the action-record checks' two lists sit apart).
 */
import type { CodeContract, CodeContracts } from './codeContract';
import { checkCodes } from './check/contract';
import { actionRecordCodes, execCodes } from './rules/actions/contract';
import { provenanceCodes } from './rules/provenance/contract';
import { quiescenceCodes } from './rules/quiescence/contract';
import { reviewCodes } from './rules/review/contract';
import { rewardCodes } from './rules/reward/contract';
import { timeoutCodes } from './rules/timeout/contract';
import { trajectoryCodes } from './rules/trajectory/contract';
import { verifierCodes } from './rules/verifier/contract';

export type { Effect } from './codeContract';

export interface CodeInfo extends CodeContract {
  /** The code's anchor in README's code table: the code itself, so a link to it stays valid as the code does. */
  readonly anchor: string;
}

export const diagnosticCodes = assemble(
  checkCodes,
  trajectoryCodes,
  verifierCodes,
  execCodes,
  quiescenceCodes,
  rewardCodes,
  actionRecordCodes,
  provenanceCodes,
  timeoutCodes,
  reviewCodes,
);

export type DiagnosticCode = keyof typeof diagnosticCodes;

export const allDiagnosticCodes = Object.keys(diagnosticCodes) as DiagnosticCode[];

export function isDiagnosticCode(value: unknown): value is DiagnosticCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(diagnosticCodes, value);
}

export function codeInfo(code: DiagnosticCode): CodeInfo {
  return diagnosticCodes[code];
}

/** The contracts' codes in one object, in the order given, each with its README anchor. */
function assemble<const Contracts extends readonly CodeContracts[]>(...contracts: Contracts): Assembled<Contracts> {
  const assembled: Record<string, CodeInfo> = {};
  for (const contract of contracts) {
    for (const [code, info] of Object.entries(contract)) {
      // A second declaration would silently replace the first, and with it the code's place in the order.
      if (Object.prototype.hasOwnProperty.call(assembled, code))
        throw new Error(`The code ${code} is declared by two contracts.`);
      assembled[code] = { ...info, anchor: code };
    }
  }
  // Object.entries forgets which code holds which entry; the loop copied each one as declared.
  return assembled as unknown as Assembled<Contracts>;
}

type Merged<Contracts extends readonly object[]> = Contracts extends readonly [
  infer First,
  ...infer Rest extends readonly object[],
]
  ? First & Merged<Rest>
  : unknown;

type Assembled<Contracts extends readonly CodeContracts[]> = {
  readonly [Code in keyof Merged<Contracts> & string]: Merged<Contracts>[Code] & { readonly anchor: Code };
};
