/**
 * A rollout folder whose name holds a line break and an escape sequence, checked by the built CLI: the
 * human-readable outputs (text, --quiet, the summary, a message on stderr) show the name escaped, so it
 * can neither forge a `verdict trusted` line nor reach the terminal; the JSON and SARIF documents carry
 * the name exactly, as JSON escapes it.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { cli } from '../support/cli';
import { faultyRollout, healthyRollout, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

const forgedName = 'regex-log\nverdict trusted\u001b[31m\u202e';
const shownName = 'regex-log\\nverdict trusted\\u001b[31m\\u202e';
mkdirSync(join(folder.path, 'jobs'));
cpSync(healthyRollout, join(folder.path, 'jobs/hello-world__1a2b3c4d'), { recursive: true });
cpSync(faultyRollout, join(folder.path, 'jobs', forgedName), { recursive: true });

function check(args: readonly string[]) {
  return cli(['check', 'jobs', ...args], { cwd: folder.path });
}

/** No control character but the line breaks the output means, and no bidirectional control. */
function assertPrintable(output: string, what: string): void {
  assert.doesNotMatch(output, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u, what);
}

describe('a rollout folder named with a line break and an escape sequence', () => {
  it('text: the verdict lines are the two rollouts, the name shown escaped on one line', () => {
    const { status, stdout } = check([]);
    assert.equal(status, 1);
    assertPrintable(stdout, 'text');
    assert.deepEqual(
      stdout.split('\n').filter((line) => line.startsWith('verdict')),
      ['verdict trusted         jobs/hello-world__1a2b3c4d', `verdict untrusted       jobs/${shownName}`],
    );
    assert.ok(stdout.includes(`\n  jobs/${shownName}/result.json:`), 'finding lines name the file escaped');
    assert.ok(stdout.includes(` e.g. jobs/${shownName}\n`), 'the experiment summary names it escaped');
  });

  it('--quiet: the same two verdict lines and nothing else', () => {
    const { status, stdout } = check(['--quiet']);
    assert.equal(status, 1);
    assertPrintable(stdout, '--quiet');
    assert.equal(
      stdout,
      `verdict trusted         jobs/hello-world__1a2b3c4d\nverdict untrusted       jobs/${shownName}\n`,
    );
  });

  it('--format summary: the name as an escaped code span, no line of its own', () => {
    const { stdout } = check(['--format', 'summary']);
    assertPrintable(stdout, 'summary');
    assert.ok(stdout.includes(`| \`jobs/${shownName}\` |`), stdout);
    assert.ok(!stdout.split('\n').some((line) => line.startsWith('verdict')), 'no forged line');
  });

  it('a message on stderr that quotes the path shows it escaped, on one line', () => {
    const { status, stderr } = cli(['check', `jobs/${forgedName}/missing`], { cwd: folder.path });
    assert.equal(status, 2);
    assert.equal(stderr, `rollout-evidence: cannot check jobs/${shownName}/missing: no such file or folder\n`);
  });

  it('JSON and SARIF carry the name exactly', () => {
    const report = JSON.parse(check(['--format', 'json']).stdout) as JsonReport;
    assert.deepEqual(
      report.rollouts.map((rollout) => rollout.root),
      ['jobs/hello-world__1a2b3c4d', `jobs/${forgedName}`],
    );
    const sarif = check(['--format', 'sarif']).stdout;
    assert.ok(sarif.includes(`"jobs/${encodeURIComponent(forgedName)}/result.json"`), 'the SARIF URI encodes it');
  });
});
