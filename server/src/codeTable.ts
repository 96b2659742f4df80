/**
 * README's code table, rendered from the codes' contracts (engine/codes.ts), one row per code in their
 * public order, each at its anchor. `npm run codes` (scripts/codeTable.mjs) writes it into README.md
 * between the markers; test/unit/codeTable.test.ts fails when README's copy is not current.
 */
import { allDiagnosticCodes, codeInfo, type Effect } from './engine/codes';

export const codeTableStart = '<!-- codes:start -->';
export const codeTableEnd = '<!-- codes:end -->';
export const codeTableCommand = 'npm run codes';

const effectLetters: Readonly<Record<Effect, string>> = { untrusted: 'U', incomplete: 'I', none: '–' };

/** The table, header included, one line each, ending in a newline. */
export function renderCodeTable(): string {
  const rows = allDiagnosticCodes.map((code) => {
    const { anchor, severity, severityNote, effect, description, readme } = codeInfo(code);
    const severityCell = severityNote === undefined ? severity : `${severity} (${severityNote})`;
    return `| <a id="${anchor}"></a>\`${code}\` | ${severityCell} | ${effectLetters[effect]} | ${tableCell(readme ?? description)} |`;
  });
  return ['| Code | Severity | Effect | When |', '|---|---|---|---|', ...rows].map((line) => `${line}\n`).join('');
}

/** README's text with the table between the markers rendered anew; throws when the markers are not there once each, in order. */
export function withCurrentCodeTable(readme: string): string {
  const start = readme.indexOf(`${codeTableStart}\n`);
  const end = readme.indexOf(`${codeTableEnd}\n`);
  if (
    start === -1 ||
    end < start ||
    readme.indexOf(codeTableStart, start + 1) !== -1 ||
    readme.indexOf(codeTableEnd, end + 1) !== -1
  ) {
    throw new Error(
      `README.md must hold the code table between one ${codeTableStart} line and one ${codeTableEnd} line after it.`,
    );
  }
  return `${readme.slice(0, start + codeTableStart.length + 1)}${renderCodeTable()}${readme.slice(end)}`;
}

/** A pipe would end the cell. */
function tableCell(text: string): string {
  return text.replaceAll('|', '\\|');
}
