/**
 * Lines kept across edits must not keep old versions of the document alive (issue 11: the server held
 * about one copy of a 100,000-line action log per edit, because kept facts held slices of each version).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArtifactChecker, type KeptCheck } from '../../server/src/engine/check/artifactChecker';
import { detachedCopy } from '../../server/src/engine/text/detachedCopy';
import { layoutOf, lineText } from '../../server/src/engine/text/lineLayout';
import { heapUsedAfterCollection } from '../support/gc';
import { seededRandom } from '../support/random';

const megabyte = 1024 * 1024;

/** About `lines` × 130 characters of action records; `version` makes every version's text distinct. */
function actionLog(lines: number, version: number, extra = ''): string {
  const rows: string[] = [];
  for (let index = 0; index < lines; index++) {
    rows.push(
      JSON.stringify({
        event_type: 'SandboxExec',
        action_id: `a-${index}-${version}`,
        phase: 'Agent',
        service: 'main',
        status: 'ok',
        command_preview: `cd /app && pytest -q tests/unit${extra}`,
        return_code: 0,
      }),
    );
  }
  return `${rows.join('\n')}\n`;
}

describe('detached copies', () => {
  it('copies every string exactly: ASCII, Latin-1, astral characters, lone surrogates, long text', () => {
    const random = seededRandom(11);
    const units = ['a', '{', '"', 'é', 'ÿ', '世', '😀', '\ud800', '\udfff', '\u0000', '\r', '\n'];
    for (let round = 0; round < 500; round++) {
      let text = '';
      const length = random.below(round % 50 === 0 ? 200_000 : 60);
      for (let index = 0; index < length; index++) text += units[random.below(units.length)]!;
      assert.equal(detachedCopy(text), text);
    }
    assert.equal(detachedCopy(''), '');
  });

  it('a line kept from each of 10 versions of a 2 MB text keeps none of the versions alive', () => {
    const measure = (cut: (text: string) => string): number => {
      // Once before measuring, so that compiling the code on the way is not counted.
      cut(actionLog(100, 0));
      const kept: string[] = [];
      const before = heapUsedAfterCollection();
      for (let version = 0; version < 10; version++) kept.push(cut(actionLog(15_000, version)));
      const grown = heapUsedAfterCollection() - before;
      assert.equal(kept.length, 10);
      return grown;
    };
    // The control: plain slices do keep the versions (20 MB), so the bound below tells the two apart.
    const sliced = measure((text) => text.slice(130 * 5, 130 * 6));
    const detached = measure((text) => lineText(layoutOf(text), 5));
    assert.ok(sliced > 15 * megabyte, `the control keeps the versions: ${(sliced / megabyte).toFixed(1)} MB`);
    assert.ok(detached < 3 * megabyte, `kept lines grew the heap by ${(detached / megabyte).toFixed(1)} MB`);
  });

  it('the facts of a checked document keep copies of the few lines they keep, not views of the document', async () => {
    const checker = new ArtifactChecker();
    // About 2 MB of messages and finished tool calls, whose facts keep no text, and one pending tool call, whose fact does.
    const trajectory = (version: number): string => {
      const rows: string[] = [];
      for (let index = 0; index < 15_000; index++)
        rows.push(
          JSON.stringify(
            index === 7_000
              ? { type: 'tool_call', tool_call_id: `call-${version}`, kind: 'execute', status: 'in_progress' }
              : index % 2 === 0
                ? { type: 'agent_message', text: `version ${version}, the agent reads the test output ${index}` }
                : {
                    type: 'tool_call',
                    tool_call_id: `c-${index}`,
                    kind: 'execute',
                    title: 'pytest -q',
                    status: 'completed',
                  },
          ),
        );
      return `${rows.join('\n')}\n`;
    };
    const options = { maxFindings: 1000 };
    const check = {
      editor: async (text: string) => checker.checkText(text, 'acp-trajectory', options),
      server: async (text: string) =>
        (await checker.checkTextCancellable(text, 'acp-trajectory', options, () => false))!.report,
    };
    for (const [name, run] of Object.entries(check)) {
      await run(trajectory(100));
      const kept: unknown[] = [];
      const before = heapUsedAfterCollection();
      for (let version = 0; version < 10; version++) kept.push(await run(trajectory(version)));
      const grown = heapUsedAfterCollection() - before;
      assert.equal(kept.length, 10);
      // Each version's text is about 2 MB: a fact holding a view of its line would keep all ten.
      assert.ok(grown < 8 * megabyte, `${name}: ten kept reports grew the heap by ${(grown / megabyte).toFixed(1)} MB`);
    }
  });

  it('what the check of a document keeps for its next check holds one version, however often it is edited', async () => {
    const checker = new ArtifactChecker();
    let kept: KeptCheck | undefined;
    const heapAfter: number[] = [];
    const base = actionLog(15_000, 0);
    for (let version = 0; version < 12; version++) {
      // One record edited per version, as typing does; every other line is reused from the last check.
      const text = base.replace(`"a-${1000 + version}-0"`, `"a-${1000 + version}-edited"`);
      const checked = await checker.checkTextCancellable(
        text,
        'action-records',
        { maxFindings: 1000 },
        () => false,
        kept,
      );
      kept = checked?.kept;
      assert.ok(kept, 'a JSONL check keeps its lines');
      heapAfter.push(heapUsedAfterCollection());
    }
    // Each version's text is about 2 MB: holding even one extra version per edit would add 20 MB.
    const growth = heapAfter[heapAfter.length - 1]! - heapAfter[1]!;
    assert.ok(
      growth < 6 * megabyte,
      `the kept check grew the heap by ${(growth / megabyte).toFixed(1)} MB over 10 edits`,
    );
  });
});
