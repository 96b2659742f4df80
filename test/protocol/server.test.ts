/**
 * The real, built language server in its own process, spoken to over stdio.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  CancellationTokenSource,
  DiagnosticSeverity,
  DocumentDiagnosticReportKind,
  LSPErrorCodes,
  type Diagnostic,
} from 'vscode-languageserver-protocol/node';
import { jsonl } from '../support/files';
import { LspTestClient } from '../support/lspClient';
import { builtServer, faultyRollout } from '../support/repo';

const rollout = '/virtual/jobs/j/r__00000001';
const uriOf = (relativePath: string) => pathToFileURL(join(rollout, relativePath)).href;
const trajectoryUri = uriOf('trajectory/acp_trajectory.jsonl');

const faultyTrajectory = readFileSync(join(faultyRollout, 'trajectory/acp_trajectory.jsonl'), 'utf8');

function messageOf(diagnostic: Diagnostic): string {
  return typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
}

function brief(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map(
    (d) =>
      `${String(d.code)}@${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character}`,
  );
}

describe('language server over stdio, pull diagnostics', () => {
  let client: LspTestClient;
  let capabilities: Awaited<ReturnType<typeof LspTestClient.start>>['initialize'];

  before(async () => {
    ({ client, initialize: capabilities } = await LspTestClient.start({ pull: true, settings: {} }));
  });
  after(async () => {
    assert.equal(await client.stop(), 0, 'the server exits cleanly after shutdown');
  });

  it('introduces itself and offers pull diagnostics', () => {
    assert.equal(capabilities.serverInfo?.name, 'rollout-evidence');
    assert.equal(
      capabilities.capabilities.diagnosticProvider &&
        'identifier' in capabilities.capabilities.diagnosticProvider &&
        capabilities.capabilities.diagnosticProvider.identifier,
      'rollout-evidence',
    );
  });

  it('reports syntax and schema faults of an opened trajectory with codes and exact ranges', async () => {
    await client.open(trajectoryUri, faultyTrajectory);
    const report = await client.pullFull(trajectoryUri);
    assert.deepEqual(brief(report.items), [
      'jsonl-syntax@2:129-2:130',
      'schema@3:92-3:101',
      'record-not-object@4:0-4:18',
      'schema@5:68-5:73',
    ]);
    const [syntax, status] = report.items;
    assert.equal(syntax!.severity, DiagnosticSeverity.Error);
    assert.equal(syntax!.source, 'rollout-evidence');
    assert.match(messageOf(status!), /"status": expected one of .* found string "running"/);
  });

  it('answers Unchanged for a document that has not changed, and re-validates an edit', async () => {
    const first = await client.pullFull(trajectoryUri);
    assert.ok(first.resultId);
    assert.equal((await client.pull(trajectoryUri, first.resultId)).kind, DocumentDiagnosticReportKind.Unchanged);

    const fixed = jsonl(
      { type: 'user_message', text: 'hi' },
      { type: 'tool_call', tool_call_id: 'c', status: 'completed' },
    );
    await client.replace(trajectoryUri, fixed, 2);
    const after = await client.pullFull(trajectoryUri, first.resultId);
    assert.deepEqual(after.items, []);
    assert.notEqual(after.resultId, first.resultId);
  });

  it('tells the client what each validation cost and found', async () => {
    const reports = client.reports.filter((report) => report.uri === trajectoryUri);
    assert.ok(reports.length >= 2);
    assert.equal(reports[0]!.kind, 'acp-trajectory');
    assert.equal(reports[0]!.problemCount, 4);
    assert.equal(reports.at(-1)!.problemCount, 0);
    assert.ok(reports.every((report) => report.durationMs >= 0));
  });

  it('reports JSON artifacts in full to clients that do not validate them themselves', async () => {
    const uri = uriOf('result.json');
    await client.open(uri, '{\n  "n_tool_calls": "2"\n}\n', 'json');
    assert.deepEqual(brief((await client.pullFull(uri)).items), ['schema@1:18-1:21']);
  });

  it('ignores documents that are not rollout artifacts', async () => {
    const uri = pathToFileURL('/virtual/notes/data.jsonl').href;
    await client.open(uri, 'not json at all\n');
    assert.deepEqual((await client.pullFull(uri)).items, []);
  });

  it('limits the problems listed per file, with a visible notice, and follows a settings change', async () => {
    const uri = uriOf('agent/acp_trajectory.jsonl');
    await client.open(uri, '{"type":3}\n'.repeat(5));
    assert.equal((await client.pullFull(uri)).items.length, 5);

    const refreshesBefore = client.refreshRequests;
    await client.changeSettings({ maxNumberOfProblems: 2 });
    await client.until(() => client.refreshRequests > refreshesBefore, 'a diagnostics refresh request');
    const limited = await client.pullFull(uri);
    assert.deepEqual(
      limited.items.map((d) => d.code),
      ['schema', 'schema', 'problems-limited'],
    );
    assert.match(messageOf(limited.items[2]!), /first 2 of 5 problems.*rolloutEvidence\.maxNumberOfProblems/);
  });

  it('applies user patterns for extra artifact files', async () => {
    const uri = pathToFileURL('/virtual/custom/run1.traj.jsonl').href;
    await client.changeSettings({ artifacts: { '*.traj.jsonl': 'acp-trajectory' } });
    await client.open(uri, '{"type":"tool_call"}\n');
    assert.deepEqual((await client.pullFull(uri)).items.map(messageOf), [
      'A tool_call record is missing the required property "tool_call_id".',
      'A tool_call record is missing the required property "status".',
    ]);
  });

  it('warns once about malformed settings and keeps working with the defaults', async () => {
    await client.changeSettings({ maxNumberOfProblems: 'many', artifacts: { '*.x.jsonl': 'nonsense' } });
    const uri = uriOf('rewards.jsonl');
    await client.open(uri, '{"value":"1"}\n');
    assert.equal((await client.pullFull(uri)).items.length, 1);
    await client.until(() => client.messages.length >= 2, 'two warnings');
    assert.deepEqual(
      client.messages.map((m) => m.message.split(':')[1]!.trim()),
      ['rolloutEvidence.maxNumberOfProblems', 'rolloutEvidence.artifacts'],
    );
  });

  it('stops a cancelled validation and answers the next request', async () => {
    await client.changeSettings({});
    const uri = uriOf('trajectory/llm_trajectory.jsonl');
    await client.open(
      uri,
      Array.from({ length: 200_000 }, (_, index) => `{"request":{"body":{"index":${index}}}}\n`).join(''),
    );
    const source = new CancellationTokenSource();
    const pending = client.pull(uri, undefined, source);
    source.cancel();
    await assert.rejects(pending, (error: { code?: number }) => error.code === LSPErrorCodes.RequestCancelled);
    assert.deepEqual((await client.pullFull(uri)).items, []);
  });

  describe('hostile documents', () => {
    const hostile: Record<string, [text: string, codes: string[]]> = {
      'NUL bytes': ['\u0000\u0000{"type":"user_message"}\u0000\n', ['jsonl-syntax']],
      'deep nesting': [
        `{"type":"tool_call","tool_call_id":1,"status":"pending","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n${'['.repeat(100_000)}\n`,
        ['schema', 'schema', 'jsonl-syntax'],
      ],
      'a 10 MB single line': [`${JSON.stringify({ type: 'user_message', text: 'x'.repeat(10 * 1024 * 1024) })}\n`, []],
      '__proto__ keys': [
        '{"__proto__":{"type":"tool_call"},"type":"agent_timeout","constructor":1}\n{"__proto__":null}\n',
        ['schema', 'schema', 'schema'],
      ],
      'an empty document': ['', ['artifact-empty']],
      'replacement characters from a non-UTF-8 file': [
        '{"type":"user_message","text":"caf\uFFFD"}\n\uFFFD\uFFFD\n',
        ['jsonl-syntax'],
      ],
    };
    for (const [name, [text, codes]] of Object.entries(hostile)) {
      it(`survives ${name} and keeps answering`, async () => {
        const uri = pathToFileURL(join(rollout, name.replace(/\W+/g, '-'), 'trajectory/acp_trajectory.jsonl')).href;
        await client.open(uri, text);
        const report = await client.pullFull(uri);
        assert.deepEqual(
          report.items.map((d) => d.code),
          codes,
        );
        assert.ok(
          report.items.every((d) => messageOf(d).length < 500),
          'messages never quote whole records',
        );
        // Still alive: another document validates afterwards.
        assert.deepEqual((await client.pullFull(trajectoryUri)).items, []);
      });
    }
  });
});

describe('language server over stdio, push diagnostics', () => {
  it('publishes the same diagnostics to a client without pull support, and clears them on close', async () => {
    const { client, initialize } = await LspTestClient.start({ pull: false });
    try {
      assert.equal(initialize.capabilities.diagnosticProvider, undefined);
      await client.open(trajectoryUri, faultyTrajectory);
      const published = await client.nextPublished(trajectoryUri, (params) => params.diagnostics.length > 0);
      assert.deepEqual(brief(published.diagnostics), [
        'jsonl-syntax@2:129-2:130',
        'schema@3:92-3:101',
        'record-not-object@4:0-4:18',
        'schema@5:68-5:73',
      ]);

      await client.replace(trajectoryUri, jsonl({ type: 'user_message', text: 'ok' }), 2);
      assert.equal((await client.nextPublished(trajectoryUri, (params) => params.version === 2)).diagnostics.length, 0);

      await client.replace(trajectoryUri, '{"type":1}\n', 3);
      await client.nextPublished(trajectoryUri, (params) => params.version === 3 && params.diagnostics.length === 1);
      await client.close(trajectoryUri);
      await client.nextPublished(
        trajectoryUri,
        (params) => params.diagnostics.length === 0 && params.version === undefined,
      );
    } finally {
      await client.stop();
    }
  });

  it('reports the syntax and schema problems of JSON artifacts itself, whatever the client (VS Code included)', async () => {
    // VS Code once said it validated JSON artifacts itself; the server now owns their diagnostics regardless.
    const { client } = await LspTestClient.start({
      pull: false,
      initializationOptions: { jsonDocumentsValidatedByClient: true },
    });
    try {
      const result = uriOf('result.json');
      const resultText = '{"n_tool_calls": "2"}';
      await client.open(result, resultText, 'json');
      const timing = uriOf('timing.json');
      await client.open(timing, '{"started_at": "2026-08-22T10:00:00Z",}', 'json');
      const schema = await client.nextPublished(result, (params) => params.diagnostics.length > 0);
      assert.deepEqual(
        schema.diagnostics.map((d) => `${String(d.code)}@${d.range.start.line}:${d.range.start.character}`),
        [`schema@0:${resultText.indexOf('"2"')}`],
      );
      const syntax = await client.nextPublished(timing, (params) => params.diagnostics.length > 0);
      assert.deepEqual(
        syntax.diagnostics.map((d) => String(d.code)),
        ['json-syntax'],
      );
    } finally {
      await client.stop();
    }
  });
});

describe('language server start-up', () => {
  it('explains how to choose a transport when started without one', () => {
    const result = spawnSync(process.execPath, [builtServer], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /pass --stdio/);
  });
});
