/**
 * What the real server does with requests no well-behaved client sends: params of the wrong type for
 * every custom request and for the language features, folders outside the workspace, and the probe
 * without workspace trust. Each is answered with a clear error, and the server answers correctly after.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DidChangeWorkspaceFoldersNotification, ErrorCodes } from 'vscode-languageserver-protocol/node';
import {
  probeContextRequest,
  probeTargetsRequest,
  rolloutsRequest,
  runProbeRequest,
  scaffoldFilesRequest,
  scaffoldScenariosRequest,
  timelineRequest,
  workspaceNotTrustedErrorCode,
  workspaceTrustGrantedNotification,
} from '../../shared/src/protocol';
import type { RolloutsResult } from '../../shared/src/rollouts';
import { LspTestClient, type RawResponse } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
const workspace = join(folder.path, 'workspace');
const rollout = join(workspace, 'jobs/2026-09-01__09-00-00/healthy__00000001');
const elsewhere = join(folder.path, 'elsewhere');
const outsideRollout = join(elsewhere, 'jobs/2026-09-01__09-00-00/healthy__00000002');
for (const root of [rollout, outsideRollout]) {
  mkdirSync(root, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/bundles/healthy'), root, { recursive: true });
}
const trajectory = join(rollout, 'trajectory/acp_trajectory.jsonl');

/** Params of every request that takes some, well formed, so that each test can spoil one thing. */
const validParams: Readonly<Record<string, object>> = {
  [probeContextRequest.method]: { uri: pathToFileURL(trajectory).href },
  [probeTargetsRequest.method]: { dockerAccess: 'cli' },
  // Refused by the probe's own checks (uid 0 is root) if it ever gets that far: nothing runs.
  [runProbeRequest.method]: {
    request: { target: { kind: 'local' }, user: '0', mode: 'observe', timeoutSeconds: 5 },
    transcriptId: 't',
  },
  [rolloutsRequest.method]: { folders: [workspace], maxRollouts: 10 },
  [timelineRequest.method]: { root: rollout },
  [scaffoldFilesRequest.method]: { scenario: 'healthy', rolloutName: 'made__00000001' },
};

function assertInvalidParams(response: RawResponse, what: string, message?: RegExp): void {
  assert.equal(response.error?.code, ErrorCodes.InvalidParams, `${what}: ${JSON.stringify(response)}`);
  if (message) assert.match(response.error.message, message, what);
}

function listedRoots(result: RolloutsResult): string[] {
  return result.jobs.flatMap((job) => job.rollouts.map((summary) => summary.root));
}

after(() => folder.remove());

describe('language server: malformed params', () => {
  let client: LspTestClient;
  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [workspace] }));
  });
  after(async () => client.stop());

  it('answers null, array, number and string params to every custom request with InvalidParams', async () => {
    for (const [method, valid] of Object.entries(validParams)) {
      for (const params of [null, [], [valid], 3, 'folders']) {
        assertInvalidParams(await client.sendRaw(method, params), `${method} with ${JSON.stringify(params)}`);
      }
      // A missing field is named.
      const [first] = Object.keys(valid);
      const { [first!]: _left, ...rest } = valid as Record<string, unknown>;
      if (method !== probeContextRequest.method)
        assertInvalidParams(await client.sendRaw(method, rest), `${method} without ${first}`, new RegExp(`"${first}"`));
    }
    // It takes none: params that are something are refused; none, or an empty object, are fine.
    for (const params of [null, 3, [1], { scenario: 'healthy' }]) {
      assertInvalidParams(
        await client.sendRaw(scaffoldScenariosRequest.method, params),
        `scaffoldScenarios with ${JSON.stringify(params)}`,
        /takes no params/,
      );
    }
    assert.ok(Array.isArray((await client.sendRaw(scaffoldScenariosRequest.method, {})).result));
  });

  it('names the field that is wrong', async () => {
    const cases: [string, unknown, RegExp][] = [
      [
        timelineRequest.method,
        { root: rollout, range: { from: 2, to: 1 } },
        /"range" must be a range \{ from, to \} with from before to/,
      ],
      [
        timelineRequest.method,
        { root: rollout, range: { from: 'a', to: 1 } },
        /"range.from" must be a finite number, not a string "a"/,
      ],
      [
        probeTargetsRequest.method,
        { dockerAccess: 'ssh' },
        /"dockerAccess" must be one of "auto", "cli", "engine-api"/,
      ],
      [runProbeRequest.method, { request: null, transcriptId: 't' }, /"request" must be an object, not null/],
      [rolloutsRequest.method, { folders: [workspace], maxRollouts: 1.5 }, /"maxRollouts" must be a whole number/],
      [
        scaffoldFilesRequest.method,
        { scenario: 'healthy', rolloutName: 7 },
        /"rolloutName" must be a string, not number 7/,
      ],
      [
        'textDocument/hover',
        { textDocument: { uri: 3 }, position: { line: 0, character: 0 } },
        /"textDocument.uri" must be a string, not number 3/,
      ],
      [
        'textDocument/hover',
        { textDocument: { uri: pathToFileURL(trajectory).href }, position: { line: -1, character: 0 } },
        /"position.line" must be a whole number/,
      ],
      ['textDocument/documentSymbol', { textDocument: null }, /"textDocument" must be an object, not null/],
      [
        'textDocument/references',
        { textDocument: { uri: pathToFileURL(trajectory).href }, position: { line: 0, character: 0 } },
        /"context" must be an object, not nothing/,
      ],
      [
        'textDocument/inlayHint',
        { textDocument: { uri: pathToFileURL(trajectory).href }, range: { start: { line: 0, character: 0 } } },
        /"range.end" must be an object/,
      ],
      [
        'textDocument/codeAction',
        {
          textDocument: { uri: pathToFileURL(trajectory).href },
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          context: { diagnostics: [{}] },
        },
        /"context.diagnostics\[0\].range" must be an object/,
      ],
    ];
    for (const [method, params, message] of cases)
      assertInvalidParams(await client.sendRaw(method, params), `${method} with ${JSON.stringify(params)}`, message);
    for (const method of [
      'textDocument/hover',
      'textDocument/definition',
      'textDocument/documentHighlight',
      'textDocument/completion',
      'textDocument/foldingRange',
      'textDocument/codeLens',
    ]) {
      for (const params of [null, 3])
        assertInvalidParams(await client.sendRaw(method, params), `${method} with ${JSON.stringify(params)}`);
    }
  });

  it('logs and drops malformed notifications', async () => {
    for (const params of [null, { changes: [{ uri: 3 }] }, { changes: 'all' }]) {
      await client.connection.sendNotification('workspace/didChangeWatchedFiles', params);
      await client.connection.sendNotification(DidChangeWorkspaceFoldersNotification.method, params);
    }
    const dropped = await client.until(() => {
      const messages = client.serverMessages.filter((message) => message.startsWith('Ignored a malformed'));
      return messages.length === 6 && messages;
    }, 'six malformed notifications logged');
    assert.match(dropped[0]!, /workspace\/didChangeWatchedFiles: the params must be an object, not null/);
    assert.match(dropped[2]!, /"changes\[0\].uri" must be a string, not number 3/);
    assert.match(dropped[3]!, /workspace\/didChangeWorkspaceFolders: "event" must be an object/);
  });

  it('answers correctly after all of that', async () => {
    const listed = await client.connection.sendRequest(rolloutsRequest, { folders: [workspace], maxRollouts: 10 });
    assert.deepEqual(listedRoots(listed), [rollout]);
    assert.equal(listed.jobs[0]!.rollouts[0]!.verdict, 'trusted');
    const picture = await client.connection.sendRequest(timelineRequest, { root: rollout });
    assert.equal(picture.root, rollout);
    const context = await client.connection.sendRequest(probeContextRequest, { uri: pathToFileURL(trajectory).href });
    assert.equal(context.rolloutRoot, rollout);
    assert.ok(
      (await client.connection.sendRequest(scaffoldScenariosRequest)).some((scenario) => scenario.id === 'healthy'),
    );
    const scaffold = await client.connection.sendRequest(scaffoldFilesRequest, {
      scenario: 'masked-quiescence-probe',
      rolloutName: 'made__00000001',
    });
    assert.equal(scaffold.focusFile, 'benchguard/action_records.jsonl');
    assert.ok(scaffold.files.some((file) => file.path === 'benchguard/action_records.jsonl'));
  });
});

describe('language server: folders a request may walk or read', () => {
  let client: LspTestClient;
  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [workspace] }));
  });
  after(async () => client.stop());

  const outside = [
    ['an empty path', ''],
    ['a relative path', relative(process.cwd(), workspace)],
    ['a relative path into the workspace', 'jobs'],
    ['a folder outside the workspace', elsewhere],
    ['the root', '/'],
    ['the workspace folder and ..', join(workspace, '..')],
    ['a path that leaves the workspace through ..', `${workspace}/jobs/../../elsewhere`],
    ['a sibling whose name starts like the workspace', `${workspace}-other`],
  ] as const;

  it('lists rollouts only in absolute folders inside the workspace folders', async () => {
    for (const [what, path] of outside) {
      assertInvalidParams(
        await client.sendRaw(rolloutsRequest.method, { folders: [workspace, path], maxRollouts: 10 }),
        what,
        /"folders\[1\]" must be/,
      );
    }
    // Inside, also spelled with a `..` that stays inside: the folder walked is the resolved one.
    const listed = await client.connection.sendRequest(rolloutsRequest, {
      folders: [`${workspace}/jobs/../jobs`],
      maxRollouts: 10,
    });
    assert.deepEqual(listedRoots(listed), [rollout]);
  });

  it('draws a timeline and reads a probe context only of a folder inside the workspace, or of an open document', async () => {
    for (const [what, path] of outside)
      assertInvalidParams(await client.sendRaw(timelineRequest.method, { root: path }), what, /"root" must be/);
    assertInvalidParams(
      await client.sendRaw(timelineRequest.method, { root: outsideRollout }),
      'a rollout outside the workspace',
      /"root" must be/,
    );
    const outsideUri = pathToFileURL(join(outsideRollout, 'trajectory/acp_trajectory.jsonl')).href;
    assertInvalidParams(
      await client.sendRaw(probeContextRequest.method, { uri: outsideUri }),
      'a document outside the workspace, not open',
      /"uri" must be/,
    );

    // A file opened on its own, outside any workspace folder: its rollout is one the editor showed us.
    await client.open(outsideUri, '');
    try {
      assert.equal(
        (await client.connection.sendRequest(timelineRequest, { root: outsideRollout })).root,
        outsideRollout,
      );
      assert.equal(
        (await client.connection.sendRequest(probeContextRequest, { uri: outsideUri })).rolloutRoot,
        outsideRollout,
      );
      assertInvalidParams(
        await client.sendRaw(timelineRequest.method, { root: elsewhere }),
        'a parent of the open document',
        /"root" must be/,
      );
    } finally {
      await client.close(outsideUri);
    }
    assertInvalidParams(
      await client.sendRaw(timelineRequest.method, { root: outsideRollout }),
      'the rollout of a document closed again',
      /"root" must be/,
    );
  });

  it('follows the workspace folders as the client changes them', async () => {
    const change = (added: string[], removed: string[]) =>
      client.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, {
        event: {
          added: added.map((path) => ({ uri: pathToFileURL(path).href, name: 'f' })),
          removed: removed.map((path) => ({ uri: pathToFileURL(path).href, name: 'f' })),
        },
      });
    await change([elsewhere], []);
    assert.deepEqual(
      listedRoots(await client.connection.sendRequest(rolloutsRequest, { folders: [elsewhere], maxRollouts: 10 })),
      [outsideRollout],
    );
    // A malformed change is dropped whole: the folder it would remove stays.
    await client.connection.sendNotification(DidChangeWorkspaceFoldersNotification.method, {
      event: { added: 3, removed: [{ uri: pathToFileURL(elsewhere).href }] },
    });
    assert.deepEqual(
      listedRoots(await client.connection.sendRequest(rolloutsRequest, { folders: [elsewhere], maxRollouts: 10 })),
      [outsideRollout],
    );
    await change([], [elsewhere]);
    assertInvalidParams(
      await client.sendRaw(rolloutsRequest.method, { folders: [elsewhere], maxRollouts: 10 }),
      'a folder removed from the workspace',
      /"folders\[0\]" must be inside a workspace folder/,
    );
    assert.deepEqual(
      listedRoots(await client.connection.sendRequest(rolloutsRequest, { folders: [workspace], maxRollouts: 10 })),
      [rollout],
    );
  });

  it('refuses every folder when the client declared none', async () => {
    const { client: bare } = await LspTestClient.start({ pull: true, settings: {} });
    try {
      assertInvalidParams(
        await bare.sendRaw(rolloutsRequest.method, { folders: [workspace], maxRollouts: 10 }),
        'no workspace folders',
        /it declared none/,
      );
    } finally {
      await bare.stop();
    }
  });
});

describe('language server: the probe needs a trusted workspace', () => {
  const probe = validParams[runProbeRequest.method];

  /** What the server answers the probe request with: the trust refusal, or (past it) the probe's own check. */
  async function probeAnswer(client: LspTestClient): Promise<RawResponse> {
    return client.sendRaw(runProbeRequest.method, probe);
  }
  const assertRefused = (response: RawResponse, what: string) => {
    assert.equal(response.error?.code, workspaceNotTrustedErrorCode, `${what}: ${JSON.stringify(response)}`);
    assert.match(response.error.message, /trusted.*rolloutEvidence\.probe\.trustedWorkspace/, what);
  };
  const assertPastTheGate = (response: RawResponse, what: string) =>
    assertInvalidParams(response, what, /uid 0 is root/);

  async function withClient(
    options: Parameters<typeof LspTestClient.start>[0],
    test: (client: LspTestClient) => Promise<void>,
  ): Promise<void> {
    const { client } = await LspTestClient.start(options);
    try {
      await test(client);
    } finally {
      await client.stop();
    }
  }

  it('refuses it when the client says nothing of trust, and the setting does not opt in', () =>
    withClient({ pull: true, settings: {} }, async (client) => {
      assertRefused(await probeAnswer(client), 'no word of trust');
      // The refusal comes after the params check: malformed params are still InvalidParams.
      assertInvalidParams(await client.sendRaw(runProbeRequest.method, null), 'null params');
    }));

  it('runs it when the client says the workspace is trusted', () =>
    withClient({ pull: true, settings: {}, initializationOptions: { workspaceTrusted: true } }, async (client) =>
      assertPastTheGate(await probeAnswer(client), 'trusted'),
    ));

  it('follows the client when it says the workspace is not trusted, whatever the setting, until it grants trust', () =>
    withClient(
      {
        pull: true,
        settings: { probe: { trustedWorkspace: true } },
        initializationOptions: { workspaceTrusted: false },
      },
      async (client) => {
        assertRefused(await probeAnswer(client), 'not trusted, setting on');
        await client.connection.sendNotification(workspaceTrustGrantedNotification);
        assertPastTheGate(await probeAnswer(client), 'trust granted');
      },
    ));

  it('runs it for another editor when rolloutEvidence.probe.trustedWorkspace is on, and not once it is off again', () =>
    withClient({ pull: true, settings: { probe: { trustedWorkspace: true } } }, async (client) => {
      assertPastTheGate(await probeAnswer(client), 'setting on');
      await client.changeSettings({ probe: { trustedWorkspace: false } });
      assertRefused(await probeAnswer(client), 'setting off again');
    }));
});
