/**
 * README's code table is generated from the codes' contracts (server/src/codeTable.ts); these tests keep
 * README's copy current and check the table as a reader sees it, independently of the renderer.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { codeTableCommand, renderCodeTable, withCurrentCodeTable } from '../../server/src/codeTable';
import { allDiagnosticCodes, codeInfo } from '../../server/src/engine/codes';
import { repoRoot } from '../support/repo';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe("README's code table", () => {
  it('is the table the codes’ contracts render', () => {
    const current = withCurrentCodeTable(readme);
    assert.ok(
      current === readme,
      `README.md's code table is not the one the codes' contracts render: run \`${codeTableCommand}\` and commit README.md.`,
    );
  });

  it('lists every diagnostic code exactly once, with the anchor, severity and effect codes.ts gives it', () => {
    // A row: | <a id="code"></a>`code` | severity | effect | when |. The severity cell may add a note
    // in parentheses (quiescence-unproven's warning case); the effect is U, I or –.
    const rows = [
      ...readme.matchAll(/^\| <a id="([a-z0-9-]+)"><\/a>`([a-z0-9-]+)` \| ([a-z]+)(?: \(([^|]*)\))? \| ([UI–]) \|/gm),
    ];
    const effects = { U: 'untrusted', I: 'incomplete', '–': 'none' } as const;
    const byCode = (a: { code: string | undefined }, b: { code: string | undefined }) =>
      String(a.code).localeCompare(String(b.code));
    const table = rows
      .map(([, anchor, code, severity, severityNote, effect]) => ({
        anchor,
        code,
        severity,
        severityNote,
        effect: effects[effect as keyof typeof effects],
      }))
      .sort(byCode);
    const expected = allDiagnosticCodes
      .map((code) => ({
        anchor: codeInfo(code).anchor,
        code,
        severity: codeInfo(code).severity,
        severityNote: codeInfo(code).severityNote,
        effect: codeInfo(code).effect,
      }))
      .sort(byCode);
    assert.deepEqual(table, expected);
    assert.ok(
      allDiagnosticCodes.every((code) => codeInfo(code).anchor === code),
      'a code is its own anchor, so links to it stay valid',
    );
  });

  it('has one row per code, in the codes’ order, each a cell of text without a bare pipe', () => {
    const rows = renderCodeTable().split('\n').slice(2, -1);
    assert.deepEqual(
      rows.map((row) => /^\| <a id="[a-z0-9-]+"><\/a>`([a-z0-9-]+)` \|/.exec(row)?.[1]),
      allDiagnosticCodes,
    );
    // Four cells (code, severity, effect, text) between five pipes.
    for (const row of rows) assert.equal(row.split(/(?<!\\)\|/).length, 6, row);
  });
});
