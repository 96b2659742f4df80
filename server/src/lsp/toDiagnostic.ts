/** Engine findings as LSP diagnostics. */
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import type { Finding, Severity, TextRange } from '../engine/findings';

export const diagnosticSource = 'rollout-evidence';

const severities: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toDiagnostic(finding: Finding): Diagnostic {
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
