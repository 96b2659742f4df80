/**
 * The outline the language server makes from its check's lines (each record named as the check parsed
 * it, lines an edit left alone taken over from the check before): whatever an edit inserts, deletes or
 * breaks, and whatever the rules now read in an action record, it is the outline made from the text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArtifactKind } from '../../shared/src/layout';
import { ArtifactChecker, type KeptCheck } from '../../server/src/engine/check/artifactChecker';
import { outlineOf, outlineOfCheckedLines } from '../../server/src/engine/inspect/outline';
import { fixtures } from '../fixtures/definitions';
import { seededRandom, type SeededRandom } from '../support/random';

const files: readonly (readonly [string, ArtifactKind])[] = [
  ['trajectory/acp_trajectory.jsonl', 'acp-trajectory'],
  ['benchguard/action_records.jsonl', 'action-records'],
];

function linePool(file: string): string[] {
  return [
    ...new Set(fixtures.flatMap((fixture) => (fixture.files[file] ?? '').split('\n').filter((line) => line !== ''))),
  ];
}

/** Replaces, deletes or inserts a line (a blank one sometimes), or breaks one character of a line. */
function edit(lines: readonly string[], pool: readonly string[], random: SeededRandom): string[] {
  const at = random.below(lines.length + 1);
  const line = random.below(6) === 0 ? '   ' : pool[random.below(pool.length)]!;
  switch (random.below(4)) {
    case 0:
      return [...lines.slice(0, at), line, ...lines.slice(at + 1)];
    case 1:
      return [...lines.slice(0, at), ...lines.slice(at + 1)];
    case 2:
      return [...lines.slice(0, at), line, ...lines.slice(at)];
    default: {
      const text = lines[at] ?? '';
      const column = random.below(text.length + 1);
      return [
        ...lines.slice(0, at),
        `${text.slice(0, column)}${'{x" '[random.below(4)]}${text.slice(column + 1)}`,
        ...lines.slice(at + 1),
      ];
    }
  }
}

const checker = new ArtifactChecker();

describe('the outline from the checked lines', () => {
  for (const [file, kind] of files) {
    it(`of ${file}, after any sequence of edits, is the outline made from the text`, async () => {
      const pool = linePool(file);
      for (let seed = 1; seed <= 40; seed++) {
        const random = seededRandom(seed);
        const newline = seed % 3 === 0 ? '\r\n' : '\n';
        let lines = pool.slice(0, 2 + random.below(pool.length - 1));
        let kept: KeptCheck | undefined;
        for (let step = 0; step < 12; step++) {
          // What the rules read in a line changes with the rest of the log: sometimes, for some lines.
          const readings = new Map(
            lines.map((_, line) => [line, random.below(3) === 0 ? `reading ${random.below(2)}` : undefined] as const),
          );
          const readingOf = kind === 'action-records' ? (line: number) => readings.get(line) : undefined;
          const text = `${lines.join(newline)}${random.below(4) === 0 ? '' : newline}`;
          kept = (await checker.checkTextCancellable(text, kind, { maxFindings: 1000 }, () => false, kept))!.kept!;
          assert.deepEqual(
            outlineOfCheckedLines(kept, kind, readingOf),
            outlineOf(text, kind, readingOf),
            `seed ${seed}, step ${step}`,
          );
          lines = edit(lines, pool, random);
        }
      }
    });
  }
});

describe('the outline reads an action kind as the rules do', () => {
  it('an event_type in another case is the kind the rules read it as, shown as written', () => {
    const text = [
      '{"event_type":"sandboxexec","phase":"Harden","service":"main","status":"ok","command_preview":"pkill -u agent","return_code":0}',
      '{"event_type":"SANDBOXUSERQUIESCENCE","phase":"Harden","sandbox_user":"agent","mode":"harden","return_code":0}',
      '{"event_type":"SandboxExecV2","phase":"Harden","return_code":0}',
    ].join('\n');
    assert.deepEqual(
      outlineOf(text, 'action-records').map((entry) => [entry.category, entry.name]),
      [
        ['exec', 'sandboxexec Harden main · rc 0'],
        ['observation', 'SANDBOXUSERQUIESCENCE agent harden · rc 0'],
        ['record', 'SandboxExecV2 Harden · rc 0'],
      ],
    );
  });
});
