/**
 * Why a rollout got its verdict, in one line: the findings that decided it (for `untrusted` those with
 * effect untrusted, for `incomplete` those with effect incomplete and the files that could not be read
 * in full), the evidence rules' before the files' own problems, one entry per code with its count and
 * first place. Read from every finding, not only the listed ones: --max-problems must not hide a cause.
 */
import { allDiagnosticCodes, type DiagnosticCode } from '../../engine/codes';
import { fileFinding, type BundleFinding } from '../../engine/findings';
import { effectOf, type Verdict } from '../../engine/verdict';
import { pathInBundle, type ListedBundle } from './run';

/** Codes named in full; the rest are counted, so that the line stays one line. Unread files are always named. */
const codesShown = 4;

const declarationOrder = new Map<DiagnosticCode, number>(allDiagnosticCodes.map((code, index) => [code, index]));

/** The cause line of a rollout (read after its verdict), or undefined for loose files, which have no verdict. */
export function verdictCause(bundle: ListedBundle): string | undefined {
  const outcome = bundle.evaluation;
  if (!outcome) return undefined;
  return causeOf(bundle, outcome.verdict);
}

function causeOf(bundle: ListedBundle, verdict: Verdict): string {
  if (verdict === 'trusted') return 'no finding with effect untrusted or incomplete';
  if (verdict === 'trusted-timeout')
    return 'an accepted timeout, and no finding with effect untrusted or incomplete: countable, not a success, never training-ready';
  const codes = codeEntries(bundle, verdict);
  const more = codes.length - codesShown;
  const entries = [
    ...codes.slice(0, codesShown),
    ...(more > 0 ? [`${more} more code${more === 1 ? '' : 's'}`] : []),
    ...(verdict === 'incomplete' ? unreadEntries(bundle) : []),
  ];
  return entries.length > 0 ? `because of ${entries.join(', ')}` : 'no finding names it';
}

/** `code (file:line:column)`, or `code ×count (first file:line:column)`, for each code of the deciding findings. */
function codeEntries(bundle: ListedBundle, verdict: 'untrusted' | 'incomplete'): string[] {
  const ownFindings = bundle.files.flatMap((file) =>
    (file.report?.findings ?? []).map((finding) => fileFinding(finding, file.path)),
  );
  const deciding = [...(bundle.evaluation?.findings ?? []), ...ownFindings].filter(
    (finding) => effectOf(finding) === verdict,
  );
  const byCode = new Map<DiagnosticCode, { first: BundleFinding; count: number; fromRules: boolean }>();
  for (const finding of deciding) {
    const entry = byCode.get(finding.code);
    if (entry) entry.count++;
    else byCode.set(finding.code, { first: finding, count: 1, fromRules: finding.source === 'rules' });
  }
  return [...byCode.entries()]
    .sort(
      ([codeA, a], [codeB, b]) =>
        Number(b.fromRules) - Number(a.fromRules) || declarationOrder.get(codeA)! - declarationOrder.get(codeB)!,
    )
    .map(([code, { first, count }]) => {
      const place = `${pathInBundle(bundle, first.file)}:${first.range.start.line + 1}:${first.range.start.character + 1}`;
      return count === 1 ? `${code} (${place})` : `${code} ×${count} (first ${place})`;
    });
}

/** Files the verdict counts as incomplete evidence without a finding: unreadable, or with problems beyond the limit. */
function unreadEntries(bundle: ListedBundle): string[] {
  return bundle.files.flatMap((file) => {
    if (file.ioError !== undefined) return [`${pathInBundle(bundle, file.path)} unreadable (${file.ioError})`];
    const omitted = file.report?.omitted ?? 0;
    return omitted > 0
      ? [`${omitted} unlisted problem${omitted === 1 ? '' : 's'} in ${pathInBundle(bundle, file.path)}`]
      : [];
  });
}
