import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import type { FileReport } from '../../server/src/engine/check/report';
import type { Finding } from '../../server/src/engine/findings';
import { jsonl } from '../support/files';
import { seededRandom } from '../support/random';

const checker = new ArtifactChecker();
const options = { maxFindings: 1000 };

const toolCall = {
  type: 'tool_call',
  tool_call_id: 'call_01',
  kind: 'execute',
  title: 'ls',
  status: 'completed',
  content: [],
};
const prompt = { type: 'user_message', text: 'Do it' };

function trajectory(text: string): FileReport {
  return checker.checkText(text, 'acp-trajectory', options);
}

/** Codes with 1-based line:column, the way a person reads them. */
function located(findings: readonly Finding[]): string[] {
  return findings.map(
    (f) =>
      `${f.code}@${f.range.start.line + 1}:${f.range.start.character + 1}-${f.range.end.line + 1}:${f.range.end.character + 1}`,
  );
}

/** The text a finding's range covers, on a single-line range. */
function covered(text: string, finding: Finding): string {
  const line = text.split('\n')[finding.range.start.line]!;
  return line.slice(finding.range.start.character, finding.range.end.character);
}

describe('JSONL checks', () => {
  it('accepts a healthy trajectory and counts its records', () => {
    const report = trajectory(jsonl(prompt, toolCall, { type: 'agent_message', text: 'done' }));
    assert.deepEqual(report.findings, []);
    assert.equal(report.records, 3);
  });

  it('handles CRLF, a byte order mark and blank lines without shifting line numbers', () => {
    const faulty = JSON.stringify({ ...toolCall, status: 'done' });
    const text = `\uFEFF${JSON.stringify(prompt)}\r\n\r\n   \r\n${faulty}\r\n`;
    const report = trajectory(text);
    const column = faulty.indexOf('"done"') + 1;
    assert.deepEqual(located(report.findings), [`schema@4:${column}-4:${column + '"done"'.length}`]);
    assert.equal(report.records, 2);
  });

  it('reports a broken line in the middle and still checks the lines after it', () => {
    const text =
      [JSON.stringify(prompt), '{"type":"tool_call",,}', JSON.stringify({ ...toolCall, status: 'done' })].join('\n') +
      '\n';
    const report = trajectory(text);
    assert.deepEqual(
      report.findings.map((f) => [f.code, f.range.start.line]),
      [
        ['jsonl-syntax', 1],
        ['schema', 2],
      ],
    );
    assert.equal(report.findings[0]!.range.start.character, 20);
  });

  it('treats an unterminated invalid last line as a run still writing, not as an error', () => {
    const writing = trajectory(`${JSON.stringify(prompt)}\n{"type":"tool_ca`);
    assert.deepEqual(
      writing.findings.map((f) => [f.code, f.severity]),
      [['jsonl-partial-line', 'information']],
    );
    assert.equal(writing.counts.error, 0);
    const finished = trajectory(`${JSON.stringify(prompt)}\n{"type":"tool_ca\n`);
    assert.deepEqual(
      finished.findings.map((f) => [f.code, f.severity]),
      [['jsonl-syntax', 'error']],
    );
  });

  it('accepts an unterminated last line that is complete JSON', () => {
    assert.deepEqual(trajectory(JSON.stringify(prompt)).findings, []);
  });

  it('reports JSON values that are not objects', () => {
    const report = trajectory('[1,2]\n42\n"text"\nnull\n  true  \n');
    assert.deepEqual(located(report.findings), [
      'record-not-object@1:1-1:6',
      'record-not-object@2:1-2:3',
      'record-not-object@3:1-3:7',
      'record-not-object@4:1-4:5',
      'record-not-object@5:3-5:7',
    ]);
    assert.match(report.findings[0]!.message, /an array/);
  });

  it('warns about a file with no records', () => {
    for (const text of ['', '\n\n', '  \r\n']) {
      const report = trajectory(text);
      assert.deepEqual(
        report.findings.map((f) => [f.code, f.severity]),
        [['artifact-empty', 'warning']],
        JSON.stringify(text),
      );
    }
  });

  describe('schema diagnostics', () => {
    it('cover exactly the offending value, naming the field, the expectation and what was found', () => {
      const line = JSON.stringify({ ...toolCall, status: 'done' });
      const [finding] = trajectory(`${line}\n`).findings;
      assert.equal(covered(line, finding!), '"done"');
      assert.equal(
        finding!.message,
        '"status": expected one of "pending", "in_progress", "completed", "failed", "cancelled", found string "done".',
      );
    });

    it('put a missing required property on the record type that requires it', () => {
      const line = '{"type":"tool_call","status":"pending"}';
      const [finding] = trajectory(`${line}\n`).findings;
      assert.equal(covered(line, finding!), '"tool_call"');
      assert.equal(finding!.message, 'A tool_call record is missing the required property "tool_call_id".');
    });

    it('put a missing nested property on the key of the object that lacks it', () => {
      const line = '{"request":{"path":"/v1"},"response":{"status_code":200,"body":{}}}';
      const [finding] = checker.checkText(`${line}\n`, 'llm-trajectory', options).findings;
      assert.equal(covered(line, finding!), '"request"');
      assert.match(finding!.message, /"request" is missing the required property "body"/);
    });

    it('name array elements by index and report wrong types inside arrays', () => {
      const line =
        '{"type":"agent_timeout","timeout_sec":"300","pending_tool_call_ids":["a",7],"terminal_trajectory_complete":false}';
      const findings = trajectory(`${line}\n`).findings;
      assert.deepEqual(
        findings.map((f) => [covered(line, f), f.message]),
        [
          ['"300"', '"timeout_sec": expected a number, found string "300".'],
          ['7', '"pending_tool_call_ids[1]": expected a string, found number 7.'],
        ],
      );
    });

    it('put an unexpected property name on the key itself', () => {
      const line = '{"trajectory_summary":{"tool_call_status_counts":{"completed":1,"running":1}}}';
      const [finding] = checker.checkText(line, 'result', options).findings;
      assert.equal(covered(line, finding!), '"running"');
      assert.match(
        finding!.message,
        /^Property name "running" in "trajectory_summary.tool_call_status_counts": expected one of/,
      );
    });

    it('shorten long values in messages', () => {
      const line = JSON.stringify({ type: 'tool_call', tool_call_id: 'x', status: 'x'.repeat(500) });
      const [finding] = trajectory(line).findings;
      assert.ok(finding!.message.length < 200, finding!.message);
      assert.match(finding!.message, /…"/);
    });

    it('accept record types and fields the schema does not know', () => {
      assert.deepEqual(
        trajectory(
          jsonl({ type: 'final', phase: 'agent', extra: { nested: true } }, { ...toolCall, brand_new_field: 1 }),
        ).findings,
        [],
      );
    });

    it('still require a non-empty string type', () => {
      const findings = trajectory(jsonl({ text: 'no type' }, { type: '' }, { type: 3 })).findings;
      assert.deepEqual(
        findings.map((f) => f.range.start.line),
        [0, 1, 2],
      );
    });
  });

  describe('hostile input', () => {
    it('is not fooled by __proto__ keys', () => {
      const line = '{"type":"tool_call","tool_call_id":"x","__proto__":{"status":"completed"}}';
      const report = trajectory(`${line}\n{"__proto__":null}\n`);
      assert.deepEqual(
        report.findings.map((f) => [f.range.start.line, f.message]),
        [
          [0, 'A tool_call record is missing the required property "status".'],
          [1, 'The record is missing the required property "type".'],
        ],
      );
      assert.equal(({} as Record<string, unknown>)['status'], undefined);
    });

    it('survives a deeply nested record with a schema error', () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const line = `{"type":"tool_call","tool_call_id":1,"status":"pending","content":${deep}}`;
      const report = trajectory(`${line}\n${JSON.stringify(prompt)}\n`);
      assert.equal(report.records, 2);
      assert.ok(report.findings.some((f) => f.code === 'schema' && /tool_call_id/.test(f.message)));
    });

    it('checks a 10 MB single line and places an error at its end', () => {
      const big = JSON.stringify({ ...prompt, text: 'x'.repeat(10 * 1024 * 1024) });
      assert.deepEqual(trajectory(`${big}\n`).findings, []);
      const broken = `${big.slice(0, -1)},}`;
      const [finding] = trajectory(`${broken}\n`).findings;
      assert.equal(finding!.code, 'jsonl-syntax');
      assert.equal(finding!.range.start.character, broken.length - 2);
    });

    it('reports NUL bytes as a syntax error that says so', () => {
      const [finding] = trajectory('\u0000\u0000\u0000\n').findings;
      assert.equal(finding!.code, 'jsonl-syntax');
      assert.match(finding!.message, /NUL bytes/);
    });
  });

  describe('limits', () => {
    it('lists at most the maximum and counts the rest', () => {
      const text = '{"type":3}\n'.repeat(50);
      const report = checker.checkText(text, 'acp-trajectory', { maxFindings: 10 });
      assert.equal(report.findings.length, 10);
      assert.equal(report.omitted, 40);
      assert.equal(report.counts.error, 50);
      assert.deepEqual(
        report.findings.map((f) => f.range.start.line),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
    });
  });

  describe('reusing the outcomes of unchanged lines', () => {
    it('gives the same report as a fresh check after an edit, re-analysing only the changed line', async () => {
      const rows = Array.from({ length: 50 }, (_, index) =>
        JSON.stringify({ ...toolCall, tool_call_id: `call_${index}` }),
      );
      const first = await checker.checkTextCancellable(rows.join('\n') + '\n', 'acp-trajectory', options, () => false);
      const edited = [...rows];
      edited[20] = JSON.stringify({ ...toolCall, tool_call_id: 'call_20', status: 'done' });
      const text = edited.join('\n') + '\n';
      const second = await checker.checkTextCancellable(text, 'acp-trajectory', options, () => false, first!.kept);
      assert.deepEqual(second!.report, checker.checkText(text, 'acp-trajectory', options));
      assert.deepEqual(
        second!.report.findings.map((f) => f.range.start.line),
        [20],
      );
      const before = first!.kept!.lines;
      const after = second!.kept!.lines;
      assert.equal(after.outcomes[5], before.outcomes[5], 'an unchanged line keeps its outcome');
      assert.equal(after.outcomes[45], before.outcomes[45], 'so does one after the edit');
      assert.notEqual(after.outcomes[20], before.outcomes[20], 'the edited line is analysed again');
    });

    it('reuses outcomes across inserted and deleted lines', async () => {
      const rows = Array.from({ length: 30 }, (_, index) =>
        JSON.stringify({ ...toolCall, tool_call_id: `call_${index}` }),
      );
      const first = await checker.checkTextCancellable(rows.join('\n') + '\n', 'acp-trajectory', options, () => false);
      const edited = [...rows.slice(0, 10), '{"type":7}', '{"type":8}', ...rows.slice(12 + 3)];
      const text = edited.join('\n') + '\n';
      const second = await checker.checkTextCancellable(text, 'acp-trajectory', options, () => false, first!.kept);
      assert.deepEqual(second!.report, checker.checkText(text, 'acp-trajectory', options));
      assert.equal(
        second!.kept!.lines.outcomes.at(-1),
        first!.kept!.lines.outcomes.at(-1),
        'the unchanged end is matched from the end',
      );
    });

    it('gives the same report as a fresh check after any sequence of line edits, insertions and deletions', async () => {
      const pool = [
        JSON.stringify(toolCall),
        JSON.stringify({ ...toolCall, tool_call_id: 'call_02', status: 'pending' }),
        JSON.stringify({ ...toolCall, status: 'done' }),
        JSON.stringify({ type: 'agent_timeout', reason: 'timeout', pending_tool_call_ids: ['call_02'] }),
        JSON.stringify(prompt),
        '{"type":',
        '[1,2]',
        '',
        '   ',
      ];
      const next = seededRandom(7).below;
      for (let round = 0; round < 40; round++) {
        let rows = Array.from({ length: 20 + next(20) }, () => pool[next(pool.length)]!);
        const ending = () => (next(4) === 0 ? '' : next(2) === 0 ? '\n' : '\r\n');
        let text = rows.join('\n') + ending();
        let kept = (await checker.checkTextCancellable(text, 'acp-trajectory', options, () => false))!.kept;
        for (let edit = 0; edit < 6; edit++) {
          const at = next(rows.length + 1);
          const removed = next(3);
          const added = Array.from({ length: next(3) }, () => pool[next(pool.length)]!);
          rows = [...rows.slice(0, at), ...added, ...rows.slice(at + removed)];
          text = rows.join('\n') + ending();
          const checked = (await checker.checkTextCancellable(text, 'acp-trajectory', options, () => false, kept))!;
          assert.deepEqual(
            checked.report,
            checker.checkText(text, 'acp-trajectory', options),
            `round ${round}, edit ${edit}`,
          );
          kept = checked.kept;
        }
      }
    });
  });

  describe('cancellation', () => {
    const text = jsonl(...Array.from({ length: 10_000 }, () => prompt));

    it('stops at the next yield once cancelled and reports nothing', async () => {
      let polls = 0;
      const report = await checker.checkTextCancellable(text, 'acp-trajectory', options, () => ++polls > 1);
      assert.equal(report, undefined);
      assert.equal(polls, 2, 'checked before starting, then at the first yield');
    });

    it('gives the same report as the synchronous check when not cancelled', async () => {
      const broken = `${text}{"type":\n`;
      assert.deepEqual(
        (await checker.checkTextCancellable(broken, 'acp-trajectory', options, () => false))?.report,
        checker.checkText(broken, 'acp-trajectory', options),
      );
    });
  });
});
