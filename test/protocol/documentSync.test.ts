/**
 * Document synchronisation against the real server (issue 11): a malformed notification is logged and
 * dropped and changes nothing (one `didOpen` with a number for a uri used to break every later
 * request), and a storm of edits costs one validation of the latest version, not one per edit.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticReportKind,
  DocumentSymbolRequest,
  ErrorCodes,
  type DocumentSymbol,
  type Range,
} from 'vscode-languageserver-protocol/node';
import { jsonl } from '../support/files';
import { LspTestClient } from '../support/lspClient';

const rollout = '/virtual/jobs/j/sync__00000001';
const trajectoryUri = pathToFileURL(join(rollout, 'trajectory/acp_trajectory.jsonl')).href;
const stormUri = pathToFileURL(join('/virtual/jobs/j/storm__00000002', 'trajectory/acp_trajectory.jsonl')).href;

const rows = jsonl(
  { type: 'user_message', text: 'hi' },
  { type: 'tool_call', tool_call_id: 'c1', status: 'completed' },
);

function codes(items: readonly { code?: string | number }[]): string[] {
  return items.map((item) => String(item.code));
}

describe('document synchronisation: malformed notifications', () => {
  let client: LspTestClient;
  let version = 1;

  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {} }));
  });
  after(async () => {
    assert.equal(await client.stop(), 0, 'the server exits cleanly after shutdown');
  });

  /** Sends raw params, as a broken client would. */
  const send = (method: string, params: unknown) => client.connection.sendNotification(method, params);

  it('drops a didOpen whose uri, version, language or text is wrong, and stays healthy for the next document', async () => {
    const bad: [string, unknown][] = [
      ['a number for a uri', { textDocument: { uri: 42, languageId: 'jsonl', version: 1, text: rows } }],
      ['an empty uri', { textDocument: { uri: '', languageId: 'jsonl', version: 1, text: rows } }],
      [
        'a string for a version',
        { textDocument: { uri: trajectoryUri, languageId: 'jsonl', version: '1', text: rows } },
      ],
      ['a fractional version', { textDocument: { uri: trajectoryUri, languageId: 'jsonl', version: 1.5, text: rows } }],
      ['no text', { textDocument: { uri: trajectoryUri, languageId: 'jsonl', version: 1 } }],
      ['an object for a language', { textDocument: { uri: trajectoryUri, languageId: {}, version: 1, text: rows } }],
      ['no textDocument', {}],
      ['null params', null],
    ];
    for (const [, params] of bad) await send(DidOpenTextDocumentNotification.method, params);
    await client.until(
      () => client.log.filter((line) => line.startsWith('Dropped textDocument/didOpen')).length === bad.length,
      `${bad.length} dropped didOpen lines`,
    );
    // None of them opened anything: the document is not open, so a pull of it finds nothing to report.
    assert.deepEqual((await client.pullFull(trajectoryUri)).items, []);

    await client.open(trajectoryUri, `${rows}{"type":\n`, 'jsonl', version);
    assert.deepEqual(codes((await client.pullFull(trajectoryUri)).items), ['jsonl-syntax']);
    // The features read every open document's uri: they would fail with "uri.startsWith is not a function".
    const symbols = await client.connection.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri: trajectoryUri },
    });
    assert.equal((symbols as DocumentSymbol[]).length, 3);
  });

  it('drops a didChange that is malformed or does not fit the document, and leaves the document as it was', async () => {
    const before = await client.pullFull(trajectoryUri);
    const fix = { range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, text: '' };
    const bad: [string, unknown][] = [
      ['a number for a uri', { textDocument: { uri: 7, version: version + 1 }, contentChanges: [fix] }],
      ['no version', { textDocument: { uri: trajectoryUri }, contentChanges: [fix] }],
      ['a version that does not go up', { textDocument: { uri: trajectoryUri, version }, contentChanges: [fix] }],
      [
        'changes that are not an array',
        { textDocument: { uri: trajectoryUri, version: version + 1 }, contentChanges: fix },
      ],
      [
        'a change without text',
        { textDocument: { uri: trajectoryUri, version: version + 1 }, contentChanges: [{ range: fix.range }] },
      ],
      [
        'a negative line',
        {
          textDocument: { uri: trajectoryUri, version: version + 1 },
          contentChanges: [{ range: { start: { line: -1, character: 0 }, end: fix.range.end }, text: '' }],
        },
      ],
      [
        'a fractional character',
        {
          textDocument: { uri: trajectoryUri, version: version + 1 },
          contentChanges: [{ range: { start: { line: 2, character: 0.5 }, end: fix.range.end }, text: '' }],
        },
      ],
      [
        'a line past the end',
        {
          textDocument: { uri: trajectoryUri, version: version + 1 },
          contentChanges: [{ range: { start: { line: 2, character: 0 }, end: { line: 9, character: 0 } }, text: '' }],
        },
      ],
      // The first change is fine, the second (read after it) names a line the first removed: neither applies.
      [
        'a good change, then one past the end',
        {
          textDocument: { uri: trajectoryUri, version: version + 1 },
          contentChanges: [
            fix,
            { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'x' },
          ],
        },
      ],
      ['a document that is not open', { textDocument: { uri: stormUri, version: 9 }, contentChanges: [fix] }],
    ];
    for (const [, params] of bad) await send(DidChangeTextDocumentNotification.method, params);
    await send(DidCloseTextDocumentNotification.method, { textDocument: { uri: 3 } });
    await client.until(
      () => client.log.filter((line) => line.startsWith('Dropped textDocument/didChange')).length === bad.length,
      `${bad.length} dropped didChange lines`,
    );
    await client.until(
      () => client.log.some((line) => line.startsWith('Dropped textDocument/didClose')),
      'a dropped didClose line',
    );
    assert.equal(
      (await client.pull(trajectoryUri, before.resultId)).kind,
      DocumentDiagnosticReportKind.Unchanged,
      'nothing changed',
    );

    // And a well-formed change still applies: the broken last line goes.
    await client.edit(trajectoryUri, ++version, [fix]);
    assert.deepEqual((await client.pullFull(trajectoryUri, before.resultId)).items, []);
  });
});

describe('document synchronisation: a storm of edits', () => {
  let client: LspTestClient;

  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {} }));
  });
  after(async () => {
    assert.equal(await client.stop(), 0, 'the server exits cleanly after shutdown');
  });

  it('validates once, after the edits pause, and answers every pull with the latest version', async () => {
    await client.open(stormUri, rows);
    await client.pullFull(stormUri);
    const validationsBefore = client.reports.filter((report) => report.uri === stormUri).length;

    // About 400 edits in one burst, each followed by a pull, as a client that never cancels would send
    // them. Each edit types one character into a third line; the last one closes it as a valid record.
    const line = '{"type":"agent_message","text":"' + 'x'.repeat(366) + '"}';
    const sent = [
      client.edit(stormUri, 2, [
        { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: '\n' },
      ]),
    ];
    const pulls: Promise<{ kind: string; resultId?: string; items?: unknown[] }>[] = [];
    for (let index = 0; index < line.length; index++) {
      sent.push(
        client.edit(stormUri, 3 + index, [
          { range: { start: { line: 2, character: index }, end: { line: 2, character: index } }, text: line[index]! },
        ]),
      );
      pulls.push(client.pull(stormUri));
    }
    await Promise.all(sent);
    const answers = await Promise.all(pulls);
    const latest = await client.pullFull(stormUri);
    assert.deepEqual(latest.items, [], 'the final text is three valid records');
    // A pull is answered for the version the server holds once edits pause; a loaded machine may pause
    // mid-burst, so a few answers may be for a version before the last.
    assert.ok(answers.every((answer) => answer.kind === DocumentDiagnosticReportKind.Full));
    assert.equal(answers.at(-1)!.resultId, latest.resultId, 'the last pull was answered for the last version');
    const validations = client.reports.filter((report) => report.uri === stormUri).slice(validationsBefore);
    assert.ok(validations.length <= 5, `${validations.length} validations for ${line.length + 1} edits`);
    assert.equal(validations.at(-1)!.version, 2 + line.length);
  });
});

describe('document synchronisation: a malformed pull', () => {
  it('answers InvalidParams to a diagnostic pull without a string uri, and goes on answering', async () => {
    const { client } = await LspTestClient.start({ pull: true, settings: {} });
    try {
      for (const params of [{ textDocument: { uri: 5 } }, { textDocument: null }, {}]) {
        await assert.rejects(
          client.connection.sendRequest('textDocument/diagnostic', params),
          (error: { code?: number }) => error.code === ErrorCodes.InvalidParams,
        );
      }
      await client.open(stormUri, rows);
      assert.deepEqual((await client.pullFull(stormUri)).items, []);
    } finally {
      await client.stop();
    }
  });
});

describe('document synchronisation: an edited document reads as the same text opened afresh', () => {
  const editedUri = pathToFileURL(join('/virtual/jobs/j/edited__00000003', 'trajectory/acp_trajectory.jsonl')).href;
  // Records with problems on several lines, so that a diagnostic placed on the wrong line shows.
  const records = [
    '{"type":"user_message","text":"hi"}',
    '{"type":"tool_call","tool_call_id":5,"status":"completed"}',
    '[1,2]',
    '{"type":"agent_message","text":"done"}',
    '{"type":"tool_call","tool_call_id":"c3","status":',
    '{"type":"tool_call","tool_call_id":true}',
    '',
  ].join('\n');
  /** One change inside a record (line 1's id made a string), then a burst that splits line 3 in two. */
  const changes = [
    { range: { start: { line: 1, character: 35 }, end: { line: 1, character: 36 } }, text: '"c1"' },
    { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: '{"type":"agent_' },
    { range: { start: { line: 3, character: 15 }, end: { line: 3, character: 15 } }, text: 'thought","text":"x"}\n' },
  ];

  for (const pull of [true, false]) {
    it(`${pull ? 'pulled' : 'pushed'}: diagnostics after each change equal those of the edited text opened anew`, async () => {
      const { client } = await LspTestClient.start({ pull, settings: {} });
      const diagnosticsOf = async (version: number) =>
        pull
          ? (await client.pullFull(editedUri)).items
          : (await client.nextPublished(editedUri, (params) => params.version === version)).diagnostics;
      const close = async () => {
        await client.close(editedUri);
        // Pushed, a closed document's diagnostics are cleared: waited for, so that no older report is taken for the next.
        if (!pull) await client.nextPublished(editedUri, (params) => params.version === undefined);
      };
      try {
        let text = records;
        await client.open(editedUri, text);
        await diagnosticsOf(1);
        const edited: unknown[][] = [];
        for (const [index, change] of changes.entries()) {
          text = applied(text, change);
          await client.edit(editedUri, index + 2, [change]);
          // The first change comes after a pause, the others right after it: a burst.
          if (index === 0 || index === changes.length - 1) edited.push(await diagnosticsOf(index + 2));
        }
        await close();
        await client.open(editedUri, text, 'jsonl', 1);
        const fresh = await diagnosticsOf(1);
        assert.ok(fresh.length >= 3, 'the edited text still has problems, on several lines');
        assert.deepEqual(edited.at(-1), fresh, 'after the burst');
        await close();
        await client.open(editedUri, applied(records, changes[0]!), 'jsonl', 1);
        assert.deepEqual(edited[0], await diagnosticsOf(1), 'after the single change inside a record');
      } finally {
        await client.stop();
      }
    });
  }
});

/** `text` with one change applied, as LSP reads its range. */
function applied(text: string, change: { range: Range; text: string }): string {
  const offsetOf = ({ line, character }: { line: number; character: number }) => {
    let offset = 0;
    for (let index = 0; index < line; index++) offset = text.indexOf('\n', offset) + 1;
    return offset + character;
  };
  return text.slice(0, offsetOf(change.range.start)) + change.text + text.slice(offsetOf(change.range.end));
}
