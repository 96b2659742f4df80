/**
 * Issue 11: the server kept about one copy of the document per edit (a 100,000-line action log took it
 * from 229 MB to 1,962 MB of RSS in 100 edits, and past a 700 MB heap limit at edit 37). Here the real
 * server, with a 400 MB heap and garbage collection it can be asked to run, is edited 200 times,
 * validated after each edit, and must end with about the heap it had after the first.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DocumentDiagnosticReportKind } from 'vscode-languageserver-protocol/node';
import { actionIdDigitsColumn, actionLogPath, writeRolloutWithLargeActionLog } from '../support/largeActionLog';
import { LspTestClient } from '../support/lspClient';
import { temporaryFolder } from '../support/repo';

const megabyte = 1024 * 1024;
const lines = 100_000;
const edits = 200;

describe('server memory across edits', () => {
  const folder = temporaryFolder();
  const root = join(folder.path, 'jobs/2026-08-22__10-00-00/memory__00000001');
  const text = writeRolloutWithLargeActionLog(root, lines);
  const uri = pathToFileURL(join(root, actionLogPath)).href;
  let client: LspTestClient;

  before(async () => {
    ({ client } = await LspTestClient.start({
      pull: true,
      settings: {},
      nodeArguments: ['--max-old-space-size=400', '--expose-gc'],
    }));
  });
  after(async () => {
    await client.stop();
    folder.remove();
  });

  it(`edited ${edits} times, a ${lines.toLocaleString('en')}-line action log leaves the heap within 8 MB of where the first edit left it`, async () => {
    await client.open(uri, text);
    const opened = await client.pullFull(uri);
    assert.deepEqual(opened.items, [], 'the rollout is healthy, so every rule runs to its end');
    let previous = opened.resultId;
    let afterFirst: number | undefined;
    for (let edit = 1; edit <= edits; edit++) {
      // One character typed into an action id, each time on another line, each edit validated.
      const line = 1_000 + ((edit * 337) % (lines - 2_000));
      const at = { line, character: actionIdDigitsColumn };
      await client.edit(uri, edit + 1, [{ range: { start: at, end: at }, text: 'x' }]);
      const report = await client.pull(uri, previous);
      assert.equal(report.kind, DocumentDiagnosticReportKind.Full, `edit ${edit} was validated`);
      previous = report.resultId;
      if (edit === 1) {
        const usage = await client.processUsage();
        assert.ok(usage.collected, 'the server ran under --expose-gc and collected before measuring');
        afterFirst = usage.heapUsedBytes;
      }
    }
    const afterLast = (await client.processUsage()).heapUsedBytes;
    assert.equal(client.process.exitCode, null, 'the server is still running');
    assert.equal(
      client.reports.filter((report) => report.uri === uri).at(-1)?.version,
      edits + 1,
      'the last edit was validated',
    );
    const growth = afterLast - afterFirst!;
    // The document is 16 MB: keeping a single old version of it would exceed this bound twice over.
    assert.ok(
      growth < 8 * megabyte,
      `heap after the first edit ${(afterFirst! / megabyte).toFixed(1)} MB, after the last ${(afterLast / megabyte).toFixed(1)} MB`,
    );
  });
});
