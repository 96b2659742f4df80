/** Engine findings as LSP diagnostics. */
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import { codeInfo } from '../engine/codes';
import type { Severity } from '../engine/codeContract';
import type { Finding, TextRange } from '../engine/findings';

export const diagnosticSource = 'rollout-evidence';

const severities: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export type DiagnosticConverter = (finding: Finding) => Diagnostic;

/**
 * Converts findings, linking each code to its row in the code reference that ships with the server (when
 * it is there), so that a click on the code in the Problems panel explains the rule.
 */
export function diagnosticConverter(readme: string | undefined): DiagnosticConverter {
  const readmeUri = readme ? pathToFileURL(readme).href : undefined;
  return (finding) => {
    const diagnostic = toDiagnostic(finding);
    if (readmeUri) diagnostic.codeDescription = { href: `${readmeUri}#${codeInfo(finding.code).anchor}` };
    return diagnostic;
  };
}

function toDiagnostic(finding: Finding): Diagnostic {
  const diagnostic: Diagnostic = {
    range: copyRange(finding.range),
    severity: severities[finding.severity],
    code: finding.code,
    source: diagnosticSource,
    message: finding.message,
  };
  if (finding.related?.length) {
    diagnostic.relatedInformation = finding.related.map((related) => ({
      location: { uri: pathToFileURL(related.file).href, range: copyRange(related.range) },
      message: related.message,
    }));
  }
  return diagnostic;
}

function copyRange(range: TextRange): Diagnostic['range'] {
  return { start: { ...range.start }, end: { ...range.end } };
}
