import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { artifactKinds } from '../../shared/src/layout';
import { repoRoot } from '../support/repo';

const schemasDir = join(repoRoot, 'schemas');
type Schema = Record<string, unknown>;
const schemas = new Map<string, Schema>(
  readdirSync(schemasDir).map((file) => [file, JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as Schema]),
);

/** Every `properties` entry of a schema, with its path; `if` conditions only select a branch. */
function* propertiesOf(node: unknown, path: string): Generator<[string, Schema]> {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* propertiesOf(item, `${path}/${index}`);
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'if') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, property] of Object.entries(value)) yield [`${path}/properties/${name}`, property as Schema];
    }
    yield* propertiesOf(value, `${path}/${key}`);
  }
}

describe('schemas', () => {
  it('exist for every artifact kind, and only for them', () => {
    assert.deepEqual([...schemas.keys()].sort(), artifactKinds.map((info) => info.schemaFile).sort());
  });

  for (const [file, schema] of schemas) {
    it(`${file} is valid 2020-12 with an $id, a title, and a description on every property`, () => {
      assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
      assert.match(String(schema['$id']), /^urn:rollout-evidence:schema:/);
      assert.ok(typeof schema['title'] === 'string' && typeof schema['description'] === 'string');
      new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true }).compile(schema);
      const undescribed = [...propertiesOf(schema, '#')]
        .filter(([, property]) => typeof property['description'] !== 'string' || property['description'] === '')
        .map(([path]) => path);
      assert.deepEqual(undescribed, []);
    });
  }

  it('agree on the tool call statuses wherever they appear', () => {
    const trajectory = schemas.get('acp-trajectory-row.schema.json') as {
      $defs: { toolCall: { properties: { status: { enum: string[] } } } };
    };
    const result = schemas.get('result.schema.json') as {
      properties: {
        trajectory_summary: { properties: { tool_call_status_counts: { propertyNames: { enum: string[] } } } };
      };
    };
    const statuses = trajectory.$defs.toolCall.properties.status.enum;
    assert.deepEqual(statuses, ['pending', 'in_progress', 'completed', 'failed', 'cancelled']);
    assert.deepEqual(
      result.properties.trajectory_summary.properties.tool_call_status_counts.propertyNames.enum,
      statuses,
    );
  });
});
