/**
 * The language features beyond diagnostics, asked of the real server over LSP on copies of the fixture
 * bundles: outline, folding, hover, definition, references, highlights, the verdict code lens, inlay
 * hints, completion and the fixture-authoring quick fixes. Expectations are read from the fixture
 * files and from the engine, not copied from the server's answers.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  CodeActionRequest,
  CodeLensRequest,
  CompletionRequest,
  DefinitionRequest,
  DocumentHighlightRequest,
  DocumentSymbolRequest,
  FoldingRangeRequest,
  HoverRequest,
  InlayHintRequest,
  ReferencesRequest,
  type CodeAction,
  type CodeLens,
  type CompletionItem,
  type Diagnostic,
  type DocumentSymbol,
  type Location,
  type MarkupContent,
  type TextEdit,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { fixtureMarkerFile } from '../../shared/src/scaffold';
import { LspTestClient } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();

function copyOfFixture(fixture: string, name = fixture): string {
  const root = join(folder.path, name);
  cpSync(join(repoRoot, 'test/fixtures/bundles', fixture), root, { recursive: true });
  return root;
}

/** A copy under a folder the default `rolloutEvidence.fixtureFolders` marks (test/fixtures/): a fixture bundle, where evidence may be authored. */
function copyInFixtureFolder(fixture: string, name: string): string {
  const root = join(folder.path, 'test/fixtures', name);
  cpSync(join(repoRoot, 'test/fixtures/bundles', fixture), root, { recursive: true });
  return root;
}

const uriOf = (path: string) => pathToFileURL(path).href;
const languageOf = (path: string) => (path.endsWith('.jsonl') ? 'jsonl' : 'json');

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Where `needle` occurs in the files of `root`, as "relative/path:line" with 0-based lines. */
function grep(root: string, needle: string): string[] {
  return filesUnder(root).flatMap((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((line, index) => (line.includes(needle) ? [`${relative(root, path)}:${index}`] : [])),
  );
}

function where(root: string, locations: readonly Location[]): string[] {
  return locations
    .map((location) => `${relative(root, fileURLToPath(location.uri))}:${location.range.start.line}`)
    .sort();
}

function positionOf(text: string, needle: string, occurrence = 0): { line: number; character: number } {
  let offset = -1;
  for (let index = 0; index <= occurrence; index++) offset = text.indexOf(needle, offset + 1);
  assert.notEqual(offset, -1, `${needle} is in the text`);
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - before.lastIndexOf('\n') - 1 + 1 };
}

function applied(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'jsonl', 1, text), [...edits]);
}

describe('language features of the server', () => {
  let client: LspTestClient;
  const pending = copyOfFixture('tool-pending-after-timeout');
  const trajectoryPath = join(pending, 'trajectory/acp_trajectory.jsonl');
  const trajectory = uriOf(trajectoryPath);
  const trajectoryText = readFileSync(trajectoryPath, 'utf8');

  before(async () => {
    client = (await LspTestClient.start({ pull: true, settings: { inlayHints: { elapsedTime: true } } })).client;
    await client.open(trajectory, trajectoryText);
  });
  after(async () => {
    await client.stop();
  });

  const request = <P, R>(type: { method: string }, params: P): Promise<R> =>
    client.connection.sendRequest(type.method, params) as Promise<R>;

  it('names one outline symbol per record, for what it is', async () => {
    const symbols = await request<object, DocumentSymbol[]>(DocumentSymbolRequest.type, {
      textDocument: { uri: trajectory },
    });
    const rows = trajectoryText
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(symbols.length, rows.length);
    const call = rows.findIndex((row) => row['type'] === 'tool_call' && row['status'] === 'in_progress');
    const callRow = rows[call]!;
    assert.equal(
      symbols[call]!.name,
      `tool_call ${String(callRow['tool_call_id'])} ${String(callRow['kind'])} ${JSON.stringify(callRow['title'])} · in_progress`,
    );
    const timeout = rows.findIndex((row) => row['type'] === 'agent_timeout');
    const timeoutRow = rows[timeout]!;
    assert.equal(
      symbols[timeout]!.name,
      `agent_timeout ${String(timeoutRow['timeout_sec'])}s · ${(timeoutRow['pending_tool_call_ids'] as unknown[]).length} pending`,
    );
    assert.deepEqual(
      symbols.map((symbol) => symbol.range.start.line),
      rows.map((_, index) => index),
    );
  });

  it('lists at most maxItemsComputed symbols and folding regions, and says how many records it left out', async () => {
    const whole = await request<object, DocumentSymbol[]>(DocumentSymbolRequest.type, {
      textDocument: { uri: trajectory },
    });
    assert.ok(whole.length > 2, `${whole.length} records`);
    await client.changeSettings({ inlayHints: { elapsedTime: true }, maxItemsComputed: 2 });
    try {
      const limited = await request<object, DocumentSymbol[]>(DocumentSymbolRequest.type, {
        textDocument: { uri: trajectory },
      });
      assert.deepEqual(limited.slice(0, 2), whole.slice(0, 2));
      assert.equal(limited.length, 3);
      assert.equal(limited[2]!.name, `… ${whole.length - 2} more not listed`);
      assert.equal(limited[2]!.detail, 'rolloutEvidence.maxItemsComputed is 2');
      assert.deepEqual(limited[2]!.range, whole[2]!.range);
      const folding = await request<object, { startLine: number }[]>(FoldingRangeRequest.type, {
        textDocument: { uri: trajectory },
      });
      assert.ok(folding.length <= 2);
    } finally {
      await client.changeSettings({ inlayHints: { elapsedTime: true } });
    }
  });

  it('gives a broken line a symbol of its own without hiding the records around it', async () => {
    const lines = trajectoryText.trimEnd().split('\n');
    const text = [lines[0], '{"type":"tool_call","tool_call_id":', lines[1], '[1,2]', ''].join('\n');
    const artifactUri = uriOf(join(copyOfFixture('healthy', 'broken-lines'), 'trajectory/acp_trajectory.jsonl'));
    await client.open(artifactUri, text);
    const named = await request<object, DocumentSymbol[]>(DocumentSymbolRequest.type, {
      textDocument: { uri: artifactUri },
    });
    assert.deepEqual(
      named.map((symbol) => [symbol.range.start.line, /not valid JSON|not an object/.test(symbol.name)]),
      [
        [0, false],
        [1, true],
        [2, false],
        [3, true],
      ],
    );
  });

  it('names a record with an empty type rather than failing the whole outline', async () => {
    const uri = uriOf(join(copyOfFixture('healthy', 'empty-type'), 'trajectory/acp_trajectory.jsonl'));
    await client.open(uri, '{"type":""}\n{"type":"user_message","text":"hi"}\n');
    const symbols = await request<object, DocumentSymbol[]>(DocumentSymbolRequest.type, { textDocument: { uri } });
    assert.deepEqual(
      symbols.map((symbol) => symbol.name),
      ['row without a type', 'user_message "hi"'],
    );
  });

  it('shows an id from the bundle literally in a hover, whatever backticks it holds', async () => {
    const uri = uriOf(join(copyOfFixture('healthy', 'backtick-id'), 'trajectory/acp_trajectory.jsonl'));
    const text = `${JSON.stringify({ type: 'tool_call', tool_call_id: 'a`](https://example.invalid/x.png)', status: 'completed' })}\n`;
    await client.open(uri, text);
    const hover = await request<object, { contents: MarkupContent }>(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: text.indexOf('a`') + 1 },
    });
    assert.match(
      hover.contents.value,
      /\*\*Tool call id\*\* `` a`\]\(https:\/\/example\.invalid\/x\.png\) `` · 1 occurrence/,
    );
  });

  it('outlines the keys of result.json that decide the verdict', async () => {
    const resultPath = join(pending, 'result.json');
    await client.open(uriOf(resultPath), readFileSync(resultPath, 'utf8'), 'json');
    const symbols = await request<object, DocumentSymbol[]>(DocumentSymbolRequest.type, {
      textDocument: { uri: uriOf(resultPath) },
    });
    const names = symbols.map((symbol) => symbol.name.split(':')[0]);
    for (const key of ['rewards', 'error', 'agent_timeout_info', 'trajectory_summary'])
      assert.ok(names.includes(key), key);
    assert.ok(!names.includes('model'), 'keys that do not bear on the verdict stay out');
  });

  it('folds a prompt turn', async () => {
    const ranges = await request<object, { startLine: number; endLine: number }[]>(FoldingRangeRequest.type, {
      textDocument: { uri: trajectory },
    });
    const lastLine = trajectoryText.trimEnd().split('\n').length - 1;
    assert.ok(
      ranges.some((range) => range.startLine === 0 && range.endLine === lastLine),
      JSON.stringify(ranges),
    );
  });

  it('goes from a pending id to the tool_call row that defines it', async () => {
    const position = positionOf(trajectoryText, '"call_02"', 1);
    const definitions = await request<object, Location[]>(DefinitionRequest.type, {
      textDocument: { uri: trajectory },
      position,
    });
    const rows = trajectoryText.split('\n');
    const defining = rows.findIndex(
      (row) => row.includes('"type":"tool_call"') && row.includes('"tool_call_id":"call_02"'),
    );
    assert.deepEqual(where(pending, definitions), [`trajectory/acp_trajectory.jsonl:${defining}`]);
  });

  it('finds every reference to a tool id across the rollout, and highlights those in the file', async () => {
    const position = positionOf(trajectoryText, '"call_02"');
    const references = await request<object, Location[]>(ReferencesRequest.type, {
      textDocument: { uri: trajectory },
      position,
      context: { includeDeclaration: true },
    });
    assert.deepEqual(where(pending, references), grep(pending, '"call_02"').sort());
    assert.ok(
      where(pending, references).some((place) => place.startsWith('result.json')),
      'result.json refers to the call too',
    );
    const highlights = await request<object, { range: { start: { line: number } }; kind: number }[]>(
      DocumentHighlightRequest.type,
      { textDocument: { uri: trajectory }, position },
    );
    assert.deepEqual(
      highlights.map((highlight) => `trajectory/acp_trajectory.jsonl:${highlight.range.start.line}`).sort(),
      grep(pending, '"call_02"')
        .filter((place) => place.startsWith('trajectory/acp'))
        .sort(),
    );
  });

  it('explains a field from the schema, and lists where an id appears', async () => {
    const onStatus = await request<object, { contents: MarkupContent }>(HoverRequest.type, {
      textDocument: { uri: trajectory },
      position: positionOf(trajectoryText, '"status":"in_progress"'),
    });
    assert.match(onStatus.contents.value, /`status`/);
    assert.match(onStatus.contents.value, /pending and in_progress are unresolved/);
    assert.match(onStatus.contents.value, /One of: `"pending"`, `"in_progress"`/);
    const onId = await request<object, { contents: MarkupContent }>(HoverRequest.type, {
      textDocument: { uri: trajectory },
      position: positionOf(trajectoryText, '"call_02"'),
    });
    assert.match(
      onId.contents.value,
      new RegExp(`Tool call id\\*\\* \`call_02\` · ${grep(pending, '"call_02"').length} occurrences`),
    );
    assert.match(onId.contents.value, /\(definition\)/);
  });

  it('shows the verdict and its facts in a code lens that opens the timeline', async () => {
    const lenses = await request<
      object,
      { range: { start: { line: number } }; command: { title: string; command: string; arguments: string[] } }[]
    >(CodeLensRequest.type, { textDocument: { uri: trajectory } });
    const verdict = checkRollout(pending, checker, {
      maxFindings: 1000,
      rules: defaultRuleOptions,
      caches: new ModelCaches(),
    }).evaluation!.verdict;
    assert.equal(lenses.length, 1);
    const [lens] = lenses;
    assert.equal(lens!.range.start.line, 0);
    assert.match(
      lens!.command.title,
      new RegExp(`^Rollout: ${verdict} · quiescence: proven · verifier: graded · 1 tool pending$`),
    );
    assert.equal(lens!.command.command, 'rolloutEvidence.showTimeline');
    assert.deepEqual(lens!.command.arguments, [uriOf(pending)]);
  });

  it('hints the time since the rollout started after each action timestamp, when the setting is on', async () => {
    const actionsPath = join(pending, 'benchguard/action_records.jsonl');
    const text = readFileSync(actionsPath, 'utf8');
    await client.open(uriOf(actionsPath), text);
    const hints = await request<object, { position: { line: number }; label: string }[]>(InlayHintRequest.type, {
      textDocument: { uri: uriOf(actionsPath) },
      range: { start: { line: 0, character: 0 }, end: { line: 100, character: 0 } },
    });
    const config = JSON.parse(readFileSync(join(pending, 'config.json'), 'utf8')) as { started_at: string };
    const start = Date.parse(`${config.started_at.replace(' ', 'T').slice(0, 23)}Z`);
    const first = (JSON.parse(text.split('\n')[0]!) as { started_at: string }).started_at;
    const seconds = (Date.parse(first) - start) / 1000;
    assert.equal(hints[0]!.position.line, 0);
    assert.equal(hints[0]!.label, `+${seconds.toFixed(seconds < 10 ? 1 : 0)}s`);
    assert.equal(hints.length, text.trimEnd().split('\n').length);
  });
});

describe('authoring with the server', () => {
  let client: LspTestClient;
  before(async () => {
    client = (await LspTestClient.start({ pull: true, settings: {} })).client;
  });
  after(async () => {
    await client.stop();
  });
  const request = <P, R>(type: { method: string }, params: P): Promise<R> =>
    client.connection.sendRequest(type.method, params) as Promise<R>;

  async function complete(uri: string, line: string): Promise<CompletionItem[]> {
    await client.replace(uri, line, ++version);
    const items = await request<object, CompletionItem[] | null>(CompletionRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: line.length },
    });
    return items ?? [];
  }
  let version = 1;

  it('completes property names for the record type already typed, required ones first, on a half-typed line', async () => {
    const root = copyOfFixture('healthy', 'completion');
    const uri = uriOf(join(root, 'trajectory/acp_trajectory.jsonl'));
    await client.open(uri, '', 'jsonl', version);
    const keys = await complete(uri, '{"type":"tool_call","');
    const labels = keys.map((item) => item.label);
    assert.deepEqual(labels.slice(0, 2).sort(), ['status', 'tool_call_id']);
    assert.ok(
      labels.includes('title') && !labels.includes('type') && !labels.includes('pending_tool_call_ids'),
      labels.join(),
    );
    const timeoutKeys = (await complete(uri, '{"type":"agent_timeout","')).map((item) => item.label);
    assert.ok(timeoutKeys.includes('pending_tool_call_ids') && !timeoutKeys.includes('status'), timeoutKeys.join());
    const values = (await complete(uri, '{"type":"tool_call","status":"')).map((item) => item.label);
    assert.deepEqual(values, ['"pending"', '"in_progress"', '"completed"', '"failed"', '"cancelled"']);
    const snippets = await complete(uri, '');
    const toolCall = snippets.find((item) => item.label === 'tool_call');
    assert.ok(toolCall, snippets.map((item) => item.label).join());
    const snippet = (toolCall.textEdit as TextEdit).newText;
    assert.match(
      snippet,
      /^\{"type": "tool_call", "tool_call_id": "\$\{1[^}]*\}", "status": "\$\{2\|pending,in_progress,completed,failed,cancelled\|\}"\}$/,
    );
  });

  it('after a typed colon or comma, completes at the cursor without eating the quote before it', async () => {
    const root = copyOfFixture('healthy', 'completion-after-trigger');
    const uri = uriOf(join(root, 'trajectory/acp_trajectory.jsonl'));
    await client.open(uri, '', 'jsonl', version);
    const afterColon = '{"type":"tool_call","status":';
    const values = await complete(uri, afterColon);
    assert.ok(
      values.some((item) => item.label === '"in_progress"'),
      values.map((item) => item.label).join(),
    );
    for (const item of values)
      assert.deepEqual((item.textEdit as TextEdit).range, {
        start: { line: 0, character: afterColon.length },
        end: { line: 0, character: afterColon.length },
      });
    const afterComma = '{"type":"tool_call", ';
    const keys = await complete(uri, afterComma);
    assert.ok(keys.some((item) => item.label === 'status'));
    for (const item of keys) assert.equal((item.textEdit as TextEdit).range.start.character, afterComma.length);
  });

  async function fixesFor(
    path: string,
    codes: readonly string[],
  ): Promise<{ text: string; diagnostics: Diagnostic[]; actions: CodeAction[] }> {
    const uri = uriOf(path);
    const text = readFileSync(path, 'utf8');
    await client.open(uri, text, languageOf(path));
    const diagnostics = (await client.pullFull(uri)).items.filter((diagnostic) =>
      codes.includes(String(diagnostic.code)),
    );
    assert.ok(diagnostics.length > 0, `${codes.join()} found in ${path}`);
    const range = { start: { line: 0, character: 0 }, end: { line: text.split('\n').length, character: 0 } };
    const actions =
      (await request<object, CodeAction[] | null>(CodeActionRequest.type, {
        textDocument: { uri },
        range,
        context: { diagnostics },
      })) ?? [];
    return { text, diagnostics, actions };
  }

  async function applyAndRecheck(root: string, action: CodeAction, checkedFile: string): Promise<Diagnostic[]> {
    const changes = action.edit?.changes ?? {};
    for (const [uri, edits] of Object.entries(changes)) {
      const path = fileURLToPath(uri);
      const text = readFileSync(path, 'utf8');
      await client.close(uri).catch(() => undefined);
      await client.open(uri, applied(text, edits), languageOf(path), 7);
    }
    return (await client.pullFull(uriOf(join(root, checkedFile)))).items;
  }

  it('adds a running call left out of the timeout list, and the mismatch for it goes away', async () => {
    const root = copyInFixtureFolder('timeout-pending-mismatch', 'fix-pending');
    const path = join(root, 'trajectory/acp_trajectory.jsonl');
    const { actions } = await fixesFor(path, ['timeout-pending-mismatch']);
    const add = actions.find((action) => action.title.startsWith('Add "call_02" to pending_tool_call_ids'));
    assert.ok(add, actions.map((action) => action.title).join('\n'));
    assert.equal(add.kind, 'quickfix');
    assert.equal(add.isPreferred, undefined, 'never applied on its own');
    const edits = add.edit!.changes![uriOf(path)]!;
    const fixedLine = applied(readFileSync(path, 'utf8'), edits)
      .split('\n')
      .find((line) => line.includes('agent_timeout'))!;
    assert.deepEqual((JSON.parse(fixedLine) as { pending_tool_call_ids: string[] }).pending_tool_call_ids, [
      'call_01',
      'call_02',
    ]);
    const after = await applyAndRecheck(root, add, 'trajectory/acp_trajectory.jsonl');
    // call_01 is still listed wrongly (it completed), so one mismatch stays: the one on the list entry.
    assert.equal(after.filter((diagnostic) => diagnostic.code === 'timeout-pending-mismatch').length, 1);
  });

  it('records an observation after the last kill attempt, which proves quiescence', async () => {
    const root = copyInFixtureFolder('observation-before-last-kill', 'fix-observation');
    const path = join(root, 'benchguard/action_records.jsonl');
    const { text, actions } = await fixesFor(path, ['quiescence-stale']);
    const insert = actions.find((action) =>
      action.title.startsWith('Insert a quiescent SandboxUserQuiescence observation'),
    );
    assert.ok(insert, actions.map((action) => action.title).join('\n'));
    const lastKill = text.split('\n').findIndex((line) => line.includes('"pkill -9 -u agent"'));
    // The fixture's config names the user but no uid: the title says the uid is a placeholder; the time is the kill's.
    assert.match(
      insert.title,
      new RegExp(`after the kill attempt on line ${lastKill + 1} \\(placeholders to set: uid\\)$`),
    );
    const after = await applyAndRecheck(root, insert, 'benchguard/action_records.jsonl');
    const fixed = applied(text, insert.edit!.changes![uriOf(path)]!).split('\n');
    const inserted = JSON.parse(fixed[lastKill + 1]!) as {
      event_type: string;
      observed_at: string;
      provenance: string;
    };
    assert.equal(inserted.event_type, 'SandboxUserQuiescence');
    assert.equal(inserted.provenance, 'authored', 'it says no probe made it');
    assert.equal(
      inserted.observed_at,
      (JSON.parse(text.split('\n')[lastKill]!) as { finished_at: string }).finished_at,
    );
    assert.deepEqual(
      after.filter((diagnostic) => String(diagnostic.code).startsWith('quiescence')),
      [],
    );
  });

  it('ends a pending call by the framework only where quiescence is proven, citing the observation', async () => {
    const root = copyInFixtureFolder('tool-pending-after-timeout', 'fix-lifecycle');
    const path = join(root, 'trajectory/acp_trajectory.jsonl');
    const { text, actions } = await fixesFor(path, ['tool-terminalizable']);
    const end = actions.find((action) => action.title.startsWith('Mark "call_02" as ended by the framework'));
    assert.ok(end, actions.map((action) => action.title).join('\n'));
    const appended = applied(text, end.edit!.changes![uriOf(path)]!).trimEnd().split('\n').at(-1)!;
    const observation = readFileSync(join(root, 'benchguard/action_records.jsonl'), 'utf8')
      .split('\n')
      .find((line) => line.includes('SandboxUserQuiescence'))!;
    assert.deepEqual(JSON.parse(appended), {
      type: 'tool_call_lifecycle',
      tool_call_id: 'call_02',
      lifecycle: 'ended_by_framework',
      effects: 'unknown',
      source: 'benchflow',
      quiescence_ref: (JSON.parse(observation) as { action_id: string }).action_id,
      provenance: 'authored',
    });
    const after = await applyAndRecheck(root, end, 'trajectory/acp_trajectory.jsonl');
    assert.deepEqual(
      after.filter((diagnostic) => diagnostic.code === 'tool-pending'),
      [],
    );
  });

  it('offers no lifecycle row where quiescence is not proven, even when asked with a tool-terminalizable diagnostic', async () => {
    // The same pending call; in one copy the hardening is proven, in the other its observation is masked.
    const proven = copyInFixtureFolder('tool-pending-after-timeout', 'lifecycle-proven');
    const unproven = copyInFixtureFolder('tool-pending-after-timeout', 'lifecycle-unproven');
    cpSync(
      join(repoRoot, 'test/fixtures/bundles/masked-quiescence-probe/benchguard/action_records.jsonl'),
      join(unproven, 'benchguard/action_records.jsonl'),
    );
    const askWithClaim = async (root: string): Promise<CodeAction[]> => {
      const path = join(root, 'trajectory/acp_trajectory.jsonl');
      const text = readFileSync(path, 'utf8');
      await client.open(uriOf(path), text);
      const pendingLine = text.split('\n').findIndex((line) => line.includes('"in_progress"'));
      const claimed = {
        range: { start: { line: pendingLine, character: 0 }, end: { line: pendingLine, character: 1 } },
        message: 'claimed',
        source: 'rollout-evidence',
        code: 'tool-terminalizable',
      };
      return (
        (await request<object, CodeAction[] | null>(CodeActionRequest.type, {
          textDocument: { uri: uriOf(path) },
          range: claimed.range,
          context: { diagnostics: [claimed] },
        })) ?? []
      );
    };
    const offered = await askWithClaim(proven);
    assert.ok(
      offered.some((action) => action.title.startsWith('Mark "call_02"')),
      `offered where quiescence is proven: ${JSON.stringify(offered.map((action) => action.title))}`,
    );
    assert.ok(
      !(await askWithClaim(unproven)).some((action) => action.title.startsWith('Mark')),
      'no lifecycle row without proven quiescence',
    );
    const unprovenDiagnostics = (
      await client.pullFull(uriOf(join(unproven, 'trajectory/acp_trajectory.jsonl')))
    ).items.map((diagnostic) => String(diagnostic.code));
    assert.ok(
      unprovenDiagnostics.includes('tool-pending') && !unprovenDiagnostics.includes('tool-terminalizable'),
      `the rules agree: ${unprovenDiagnostics.join()}`,
    );
  });

  it('offers none of the fixes that write evidence on a real rollout, and the finding says how to produce the evidence instead', async () => {
    const cases = [
      {
        fixture: 'observation-before-last-kill',
        file: 'benchguard/action_records.jsonl',
        code: 'quiescence-stale',
        title: 'Insert a quiescent SandboxUserQuiescence observation',
      },
      {
        fixture: 'tool-pending-after-timeout',
        file: 'trajectory/acp_trajectory.jsonl',
        code: 'tool-terminalizable',
        title: 'Mark "call_02" as ended by the framework',
      },
      {
        fixture: 'timeout-pending-mismatch',
        file: 'trajectory/acp_trajectory.jsonl',
        code: 'timeout-pending-mismatch',
        title: 'Add "call_02" to pending_tool_call_ids',
      },
    ];
    for (const { fixture, file, code, title } of cases) {
      // The same bundle, offered the fix in a fixture folder (the tests above) and nothing as a real rollout.
      const inFixtures = await fixesFor(join(copyInFixtureFolder(fixture, `offered-${fixture}`), file), [code]);
      assert.ok(
        inFixtures.actions.some((action) => action.title.startsWith(title)),
        `${fixture}: offered in a fixture folder`,
      );
      const real = await fixesFor(join(copyOfFixture(fixture, `real-${fixture}`), file), [code]);
      assert.deepEqual(
        real.actions.map((action) => action.title),
        [],
        `${fixture}: nothing offered on a real rollout`,
      );
    }
    const unproven = (
      await fixesFor(
        join(copyOfFixture('authored-observation-in-rollout', 'real-unproven'), 'benchguard/action_records.jsonl'),
        ['quiescence-unproven'],
      )
    ).diagnostics[0]!;
    assert.match(
      String(unproven.message),
      /Run the live probe on the sandbox \(the command "Rollout Evidence: Probe Sandbox-User Quiescence…", or `rollout-evidence probe`\)/,
    );
  });

  it('offers them in a bundle New Fixture Bundle marked, wherever it lies', async () => {
    const root = copyOfFixture('observation-before-last-kill', 'marked-by-scaffold');
    writeFileSync(join(root, fixtureMarkerFile), '{"fixture": true}\n');
    const { actions } = await fixesFor(join(root, 'benchguard/action_records.jsonl'), ['quiescence-stale']);
    assert.ok(
      actions.some((action) => action.title.startsWith('Insert a quiescent SandboxUserQuiescence observation')),
      actions.map((action) => action.title).join('\n'),
    );
  });

  it('reads an observation authored in a fixture, copied into a real rollout, as evidence-authored: quiescence stays unproven and the verdict untrusted', async () => {
    const fixtureRoot = copyInFixtureFolder('observation-before-last-kill', 'authored-then-copied');
    const fixturePath = join(fixtureRoot, 'benchguard/action_records.jsonl');
    const { text, actions } = await fixesFor(fixturePath, ['quiescence-stale']);
    const insert = actions.find((action) =>
      action.title.startsWith('Insert a quiescent SandboxUserQuiescence observation'),
    )!;
    const authoredText = applied(text, insert.edit!.changes![uriOf(fixturePath)]!);
    const realRoot = copyOfFixture('observation-before-last-kill', 'authored-copied-real');
    const realPath = join(realRoot, 'benchguard/action_records.jsonl');
    writeFileSync(realPath, authoredText);
    const uri = uriOf(realPath);
    await client.open(uri, authoredText, 'jsonl');
    const codes = (await client.pullFull(uri)).items.map((diagnostic) => String(diagnostic.code));
    assert.ok(codes.includes('evidence-authored') && codes.includes('quiescence-stale'), codes.join());
    const [lens] = (await request<object, CodeLens[] | null>(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
    assert.match(lens?.command?.title ?? '', /^Rollout: untrusted /);
    // In the fixture folder the same text proves quiescence.
    await client.replace(uriOf(fixturePath), authoredText, 9);
    assert.deepEqual(
      (await client.pullFull(uriOf(fixturePath))).items.filter((diagnostic) =>
        String(diagnostic.code).startsWith('quiescence'),
      ),
      [],
    );
  });
});
