/**
 * The writes refuse symbolic links: a record (the extension's Record as Evidence and the CLI's
 * `probe --record`, one function) is appended on a descriptor opened with O_NOFOLLOW and checked to be a
 * regular file, and the scaffold (the extension's and the CLI's) makes its folder exclusively and creates
 * each file with `wx`. A link planted where they write is refused and its target left untouched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { appendRecordToFile, checkRecordFile, RecordFileRefusedError } from '../../shared/src/recordAppend';
import { writeScaffoldFiles } from '../../shared/src/scaffoldWrite';
import { temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

let made = 0;
function freshFolder(): string {
  const path = join(folder.path, `case${made++}`);
  mkdirSync(path);
  return path;
}

const record = '{"event_type":"SandboxUserQuiescence"}';
const regularOnly = 'a record is appended only to a regular file, never through a symbolic link';

describe('appendRecordToFile', () => {
  it('appends one line, ending a last line without a newline first, and returns its line number', () => {
    const path = join(freshFolder(), 'action_records.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}');
    assert.equal(appendRecordToFile(path, record), 3);
    assert.equal(readFileSync(path, 'utf8'), `{"a":1}\n{"b":2}\n${record}\n`);
    assert.equal(appendRecordToFile(path, record), 4);
  });

  it('creates a file the user picked that does not exist yet', () => {
    const path = join(freshFolder(), 'new.jsonl');
    assert.equal(appendRecordToFile(path, record), 1);
    assert.equal(readFileSync(path, 'utf8'), `${record}\n`);
  });

  it('never joins a record to a damaged last line: that line stays as it was, the record whole on its own', () => {
    const path = join(freshFolder(), 'action_records.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":');
    assert.equal(appendRecordToFile(path, record), 3);
    assert.equal(readFileSync(path, 'utf8'), `{"a":1}\n{"b":\n${record}\n`);
  });

  it('refuses a symbolic link, even to a regular file, naming the path, and leaves its target as it was', () => {
    const base = freshFolder();
    const target = join(base, 'elsewhere.txt');
    writeFileSync(target, 'keep me');
    const path = join(base, 'action_records.jsonl');
    symlinkSync(target, path);
    const refusal = { message: `${path} is a symbolic link: ${regularOnly}` };
    assert.throws(() => appendRecordToFile(path, record), refusal);
    assert.throws(() => checkRecordFile(path), refusal);
    assert.equal(readFileSync(target, 'utf8'), 'keep me');
  });

  it('refuses a dangling symbolic link without creating its target', () => {
    const base = freshFolder();
    const path = join(base, 'action_records.jsonl');
    symlinkSync(join(base, 'would-be-created'), path);
    assert.throws(() => appendRecordToFile(path, record), RecordFileRefusedError);
    assert.throws(() => checkRecordFile(path), RecordFileRefusedError);
    assert.deepEqual(readdirSync(base), ['action_records.jsonl']);
  });

  it('refuses a folder and a FIFO (without waiting for a reader), saying what each is', () => {
    const base = freshFolder();
    const folderPath = join(base, 'records');
    mkdirSync(folderPath);
    assert.throws(() => appendRecordToFile(folderPath, record), {
      message: `${folderPath} is a folder: ${regularOnly}`,
    });
    const fifo = join(base, 'fifo.jsonl');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    assert.throws(() => appendRecordToFile(fifo, record), { message: `${fifo} is a FIFO: ${regularOnly}` });
    assert.throws(() => checkRecordFile(fifo), { message: `${fifo} is a FIFO: ${regularOnly}` });
  });

  it('checkRecordFile passes a regular file and a missing one, and makes nothing', () => {
    const base = freshFolder();
    writeFileSync(join(base, 'present.jsonl'), '{}\n');
    checkRecordFile(join(base, 'present.jsonl'));
    checkRecordFile(join(base, 'missing.jsonl'));
    assert.deepEqual(readdirSync(base), ['present.jsonl']);
    assert.equal(readFileSync(join(base, 'present.jsonl'), 'utf8'), '{}\n');
  });
});

describe('writeScaffoldFiles', () => {
  const files = [
    { path: 'result.json', content: '{}\n' },
    { path: 'trajectory/acp_trajectory.jsonl', content: '{"type":"user_message"}\n' },
    { path: 'trajectory/llm_trajectory.jsonl', content: '' },
  ];

  it('writes every file into a new folder', () => {
    const root = join(freshFolder(), 'rollout');
    assert.deepEqual(writeScaffoldFiles(root, files), { kind: 'written' });
    for (const file of files) assert.equal(readFileSync(join(root, file.path), 'utf8'), file.content);
  });

  it('writes nothing when the folder exists', () => {
    const root = join(freshFolder(), 'rollout');
    mkdirSync(root);
    assert.deepEqual(writeScaffoldFiles(root, files), { kind: 'exists' });
    assert.deepEqual(readdirSync(root), []);
  });

  it('refuses a rollout folder that is a symbolic link, and writes nothing where it points', () => {
    const base = freshFolder();
    const target = join(base, 'target');
    mkdirSync(target);
    const root = join(base, 'rollout');
    symlinkSync(target, root);
    assert.deepEqual(writeScaffoldFiles(root, files), { kind: 'symlink' });
    assert.deepEqual(readdirSync(target), []);
    assert.ok(lstatSync(root).isSymbolicLink());
  });

  it('refuses a file path that would leave the rollout folder', () => {
    const base = freshFolder();
    assert.throws(
      () => writeScaffoldFiles(join(base, 'rollout'), [{ path: '../escaped.json', content: '{}' }]),
      /would leave the rollout folder/,
    );
    assert.deepEqual(readdirSync(base), ['rollout']);
  });
});
