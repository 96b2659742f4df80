/**
 * Reads our JSON Schemas the way a person authoring a record needs them: which properties a record of
 * this `type` (or `event_type`) may have, what a property means, which values it takes. Hover and
 * completion share it. The schemas pick a record's shape with `allOf` of `if {const} then {$ref}`, so a
 * property's schema depends on the record it sits in; the guide follows those branches for the values
 * actually present, and every branch where no value decides.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import { isJsonObject, valueAt, type JsonObject } from '../parse/jsonKind';
import type { JsonPath } from '../parse/jsonTree';
import { schemaByKind } from '../schema/catalog';

export interface PropertyGuide {
  readonly name: string;
  readonly description?: string;
  /** Values the property takes: its `enum`, `const`, else its `examples`. */
  readonly values: readonly unknown[];
  /** Whether the values are the only ones allowed (enum or const) rather than examples. */
  readonly closed: boolean;
  readonly required: boolean;
  /** The JSON types the schema allows, when it says. */
  readonly types: readonly string[];
}

/** A kind of record, told apart by the value of one property (`type` or `event_type`). */
export interface RecordShape {
  readonly discriminator: string;
  readonly value: string;
  readonly description?: string;
  readonly required: readonly PropertyGuide[];
}

const guides = new Map<ArtifactKind, SchemaGuide>();

/** The guide of a kind's schema, made once: the schemas are fixed, and hover and completion both ask. */
export function schemaGuideFor(kind: ArtifactKind): SchemaGuide {
  let guide = guides.get(kind);
  if (!guide) {
    guide = new SchemaGuide(kind);
    guides.set(kind, guide);
  }
  return guide;
}

export class SchemaGuide {
  private readonly root: JsonObject;

  constructor(kind: ArtifactKind) {
    this.root = schemaByKind[kind] as JsonObject;
  }

  /** What the schema says of the value at `path` in `record`: merged from every schema that applies there. */
  describe(record: unknown, path: JsonPath): PropertyGuide | undefined {
    if (path.length === 0) return this.guideOf('', this.expand(this.root, record), false);
    const parentPath = path.slice(0, -1);
    const last = path[path.length - 1]!;
    const parents = this.schemasAt(record, parentPath);
    const parentValue = valueAt(record, parentPath);
    if (typeof last === 'number') {
      const items = parents.flatMap((schema) =>
        isJsonObject(schema['items']) ? this.expand(schema['items'], valueAt(parentValue, [last])) : [],
      );
      return items.length > 0 ? this.guideOf(String(last), items, false) : undefined;
    }
    return this.properties(record, parentPath).find((property) => property.name === last);
  }

  /** The properties an object at `path` may have, the required ones first. */
  properties(record: unknown, path: JsonPath): PropertyGuide[] {
    const schemas = this.schemasAt(record, path);
    const value = valueAt(record, path);
    const required = new Set(schemas.flatMap((schema) => stringsOf(schema['required'])));
    const byName = new Map<string, JsonObject[]>();
    for (const schema of schemas) {
      const properties = schema['properties'];
      if (!isJsonObject(properties)) continue;
      for (const [name, property] of Object.entries(properties)) {
        if (!isJsonObject(property)) continue;
        const list = byName.get(name) ?? [];
        list.push(...this.expand(property, isJsonObject(value) ? value[name] : undefined));
        byName.set(name, list);
      }
    }
    const guides = [...byName].map(([name, list]) => this.guideOf(name, list, required.has(name)));
    return guides.sort((a, b) => Number(b.required) - Number(a.required));
  }

  /** The record kinds the root schema tells apart, each with the properties it requires. */
  shapes(): RecordShape[] {
    const shapes: RecordShape[] = [];
    for (const branch of arrayOf(this.root['allOf'])) {
      const discriminated = discriminatorOf(branch);
      if (!discriminated || !isJsonObject(branch) || !isJsonObject(branch['then'])) continue;
      const record = { [discriminated.property]: discriminated.value };
      const required = this.properties(record, []).filter(
        (property) => property.required && property.name !== discriminated.property,
      );
      const then = this.resolve(branch['then']);
      shapes.push({
        discriminator: discriminated.property,
        value: discriminated.value,
        required,
        ...(typeof then['description'] === 'string' ? { description: then['description'] } : {}),
      });
    }
    return shapes;
  }

  private schemasAt(record: unknown, path: JsonPath): JsonObject[] {
    let schemas = this.expand(this.root, record);
    let value = record;
    for (const segment of path) {
      const child = valueAt(value, [segment]);
      schemas = schemas.flatMap((schema) => {
        const next =
          typeof segment === 'number'
            ? schema['items']
            : isJsonObject(schema['properties'])
              ? schema['properties'][segment]
              : undefined;
        return isJsonObject(next) ? this.expand(next, child) : [];
      });
      value = child;
    }
    return schemas;
  }

  /** A schema with the `$ref`, `allOf`, `anyOf`, `oneOf` and `if`/`then` branches that apply to `value`. */
  private expand(schema: JsonObject, value: unknown, depth = 0): JsonObject[] {
    if (depth > 16) return [];
    const resolved = this.resolve(schema);
    const result = [resolved];
    for (const branch of arrayOf(resolved['allOf'])) {
      if (!isJsonObject(branch)) continue;
      if (isJsonObject(branch['if'])) {
        const discriminated = discriminatorOf(branch);
        const applies = discriminated
          ? isJsonObject(value) && value[discriminated.property] === discriminated.value
          : false;
        if (applies && isJsonObject(branch['then'])) result.push(...this.expand(branch['then'], value, depth + 1));
      } else {
        result.push(...this.expand(branch, value, depth + 1));
      }
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      for (const branch of arrayOf(resolved[key]))
        if (isJsonObject(branch)) result.push(...this.expand(branch, value, depth + 1));
    }
    return result;
  }

  private resolve(schema: JsonObject): JsonObject {
    const ref = schema['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
    let target: unknown = this.root;
    for (const segment of ref.slice(2).split('/')) target = isJsonObject(target) ? target[segment] : undefined;
    return isJsonObject(target) ? { ...target, ...withoutRef(schema) } : schema;
  }

  private guideOf(name: string, schemas: readonly JsonObject[], required: boolean): PropertyGuide {
    const description = schemas
      .map((schema) => schema['description'])
      .find((text): text is string => typeof text === 'string');
    const closedValues = schemas.flatMap((schema) => [
      ...arrayOf(schema['enum']),
      ...('const' in schema ? [schema['const']] : []),
    ]);
    const examples = schemas.flatMap((schema) => arrayOf(schema['examples']));
    const types = [
      ...new Set(
        schemas.flatMap((schema) =>
          typeof schema['type'] === 'string' ? [schema['type']] : stringsOf(schema['type']),
        ),
      ),
    ];
    const closed = closedValues.length > 0;
    return {
      name,
      ...(description ? { description } : {}),
      values: unique(closed ? closedValues : examples),
      closed,
      required,
      types,
    };
  }
}

function discriminatorOf(branch: unknown): { property: string; value: string } | undefined {
  if (!isJsonObject(branch) || !isJsonObject(branch['if'])) return undefined;
  const properties = branch['if']['properties'];
  if (!isJsonObject(properties)) return undefined;
  for (const [property, schema] of Object.entries(properties)) {
    if (isJsonObject(schema) && typeof schema['const'] === 'string') return { property, value: schema['const'] };
  }
  return undefined;
}

function withoutRef(schema: JsonObject): JsonObject {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function stringsOf(value: unknown): string[] {
  return arrayOf(value).filter((item): item is string => typeof item === 'string');
}

function unique(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
