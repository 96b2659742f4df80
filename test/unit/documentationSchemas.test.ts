/**
 * The schemas VS Code's JSON support is given (dist/schemas/, written by the build) document and never
 * validate: the language server owns every diagnostic of the JSON artifacts, and a second, disagreeing
 * set from VS Code is what these copies exist to prevent.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { repoRoot } from '../support/repo';

const sourceDir = join(repoRoot, 'schemas');
const editorDir = join(repoRoot, 'dist/schemas');
const names = readdirSync(sourceDir).filter((name) => name.endsWith('.schema.json'));

function read(folder: string, name: string): unknown {
  return JSON.parse(readFileSync(join(folder, name), 'utf8')) as unknown;
}

/** Every string under `key` anywhere in the value, property names included as they come. */
function stringsUnder(value: unknown, key: string, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) stringsUnder(item, key, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [name, child] of Object.entries(value)) {
      if (name === key && typeof child === 'string') found.push(child);
      stringsUnder(child, key, found);
    }
  }
  return found;
}

/** Values wrong for almost any field of an artifact: a wrong type, an unknown enum value, a bad shape. */
const wrongValues: unknown[] = [
  42,
  'not a record',
  [],
  null,
  {
    n_tool_calls: '2',
    status: 'nonsense',
    rewards: 'high',
    type: 7,
    event_type: [],
    agent: 42,
    started_at: 12,
    survivors: 'none',
  },
];

describe('the documentation-only schemas contributed to VS Code', () => {
  it('exist for every schema and keep every description and title of the source', () => {
    assert.ok(names.length >= 4);
    for (const name of names) {
      const copy = read(editorDir, name);
      for (const key of ['description', 'title'])
        assert.deepEqual(
          stringsUnder(copy, key).sort(),
          stringsUnder(read(sourceDir, name), key).sort(),
          `${name}: ${key}`,
        );
    }
  });

  it('accept any value, so VS Code reports no schema problem of its own', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const name of names) {
      const source = ajv.compile(read(sourceDir, name) as object);
      const copy = new Ajv2020({ strict: false }).compile(read(editorDir, name) as object);
      // The source rejects some of them: the copy does not, and the test would notice if it kept a check.
      assert.ok(
        wrongValues.some((value) => !source(value)),
        `${name}: the source schema rejects a wrong value`,
      );
      for (const value of wrongValues)
        assert.equal(copy(value), true, `${name} accepts ${JSON.stringify(value)}: ${JSON.stringify(copy.errors)}`);
    }
  });

  it('offer the values a field takes as examples for completion, and allow comments and trailing commas (the server reports them)', () => {
    const result = read(editorDir, 'result.schema.json') as { allowComments?: boolean; allowTrailingCommas?: boolean };
    assert.deepEqual([result.allowComments, result.allowTrailingCommas], [true, true]);
    const sourceEnums = JSON.stringify(read(sourceDir, 'action-record.schema.json')).match(/"enum":\[[^\]]*\]/g) ?? [];
    assert.ok(sourceEnums.length > 0);
    const copyText = JSON.stringify(read(editorDir, 'action-record.schema.json'));
    for (const list of sourceEnums)
      for (const value of JSON.parse(list.slice('"enum":'.length)) as unknown[])
        assert.ok(copyText.includes(JSON.stringify(value)), `${JSON.stringify(value)} is proposed`);
  });
});
