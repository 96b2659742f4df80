/**
 * What the schemas in `schemas/` (as the engine bundles them) say is known at a place in a record: the
 * keys an object may carry and the values a kind-bearing field may take; and when an unknown key is a
 * damaged copy of a known one (`shapedLike`). The damaged-key check, the rules that read a damaged key's
 * value, and the fuzzer's damage rule all read this, so the lists stay where they are kept: in the schemas.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import type { JsonObject } from '../parse/jsonKind';
import { schemaByKind } from './catalog';

type Schema = Readonly<Record<string, unknown>>;

/**
 * The fields the engine dispatches on: their value picks what a record is (`event_type`, a row's
 * `type`), where it counts (`phase`, `service` is deliberately not here: a compose service is any
 * name) or what it claims (`status`, `mode`). The schemas list their known values as `enum`, `const`
 * (in the per-kind branches) or `examples` (where the set is left open so that newer BenchFlow files
 * are not flagged); a value outside those is a kind the rules do not know.
 */
export const kindFields: ReadonlySet<string> = new Set([
  'event_type',
  'type',
  'phase',
  'status',
  'mode',
  'verifier_environment_mode',
]);

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export type SchemaNodes = readonly Schema[];

const knowledgeByKind = new Map<ArtifactKind, SchemaKnowledge>();

export class SchemaKnowledge {
  private readonly roots: SchemaNodes;
  /** childNodes by parent node set and key: every record of a file walks the same few places. */
  private readonly children = new Map<SchemaNodes, Map<string | number, SchemaNodes>>();
  // Node lists are cached by identity (childNodes), so what is read off one is read once: the checks
  // ask for every key of every record of files of 100,000 lines.
  private readonly keysOf = new Map<SchemaNodes, ReadonlySet<string> | undefined>();
  private readonly valuesOf = new Map<SchemaNodes, ReadonlySet<unknown> | undefined>();

  private constructor(private readonly root: Schema) {
    this.roots = this.expand([root]);
  }

  /** One per kind, shared: the expansions it caches serve every record of that kind. */
  static of(kind: ArtifactKind): SchemaKnowledge {
    let knowledge = knowledgeByKind.get(kind);
    if (!knowledge) knowledgeByKind.set(kind, (knowledge = new SchemaKnowledge(schemaByKind[kind] as Schema)));
    return knowledge;
  }

  /** The schemas that apply at the root (every branch of allOf/anyOf/oneOf/if/then/else and $ref). */
  rootNodes(): SchemaNodes {
    return this.roots;
  }

  /** The schemas of property `key` (or of an array's items, when `key` is a number) under `nodes`. */
  childNodes(nodes: SchemaNodes, key: string | number): SchemaNodes {
    // Array items are one place unless a schema gives positions their own (prefixItems).
    const place = typeof key === 'number' && !nodes.some((node) => Array.isArray(node['prefixItems'])) ? -1 : key;
    let byKey = this.children.get(nodes);
    if (!byKey) this.children.set(nodes, (byKey = new Map()));
    let found = byKey.get(place);
    if (!found) byKey.set(place, (found = this.computeChildNodes(nodes, key)));
    return found;
  }

  private computeChildNodes(nodes: SchemaNodes, key: string | number): SchemaNodes {
    const children: Schema[] = [];
    for (const node of nodes) {
      if (typeof key === 'number') {
        if (isSchema(node['items'])) children.push(node['items']);
        if (Array.isArray(node['prefixItems']) && isSchema(node['prefixItems'][key]))
          children.push(node['prefixItems'][key] as Schema);
        continue;
      }
      const properties = node['properties'];
      if (isSchema(properties) && isSchema(properties[key])) children.push(properties[key] as Schema);
      if (isSchema(node['additionalProperties'])) children.push(node['additionalProperties']);
    }
    return this.expand(children);
  }

  /**
   * Whether `key` is known on an object these schemas describe. Only an object whose schema names its
   * properties, and leaves no room for others by schema (additionalProperties, patternProperties), can
   * have an unknown key: a free-form object (an LLM request body, `kwargs`) has none.
   */
  isKnownKey(nodes: SchemaNodes, key: string): boolean {
    let describesProperties = false;
    for (const node of nodes) {
      if (isSchema(node['additionalProperties']) || isSchema(node['patternProperties'])) return true;
      const properties = node['properties'];
      if (!isSchema(properties)) continue;
      describesProperties = true;
      if (Object.hasOwn(properties, key)) return true;
    }
    return !describesProperties;
  }

  /**
   * The keys the schemas name for an object here, or undefined when the object is free-form (no schema
   * names its properties, or one leaves room for any key): only a named key can have a damaged copy.
   */
  knownKeys(nodes: SchemaNodes): ReadonlySet<string> | undefined {
    if (!this.keysOf.has(nodes)) this.keysOf.set(nodes, this.computeKnownKeys(nodes));
    return this.keysOf.get(nodes);
  }

  private computeKnownKeys(nodes: SchemaNodes): ReadonlySet<string> | undefined {
    const keys = new Set<string>();
    for (const node of nodes) {
      if (isSchema(node['additionalProperties']) || isSchema(node['patternProperties'])) return undefined;
      const properties = node['properties'];
      if (isSchema(properties)) for (const key of Object.keys(properties)) keys.add(key);
    }
    return keys.size > 0 ? keys : undefined;
  }

  /**
   * The known key, absent from `object`, of which its key `key` (one the schemas do not know here) is a
   * damaged copy; undefined when `key` is known, or resembles nothing the object lacks.
   */
  damagedCopyOf(nodes: SchemaNodes, object: JsonObject, key: string): string | undefined {
    const known = this.knownKeys(nodes);
    if (!known || known.has(key)) return undefined;
    // The key is normalised once, not once per known name: every unknown key of every record comes here.
    const normalizedKey = normalized(key);
    for (const name of known)
      if (!Object.prototype.hasOwnProperty.call(object, name) && normalizedShapedLike(normalizedKey, name)) return name;
    return undefined;
  }

  /**
   * The JSON types the schemas allow here (`integer` read as `number`), or undefined when none says:
   * a value changed to another allowed type (a `return_code` of null, a root `sandbox_user`) is a value.
   */
  allowedTypes(nodes: SchemaNodes): ReadonlySet<string> | undefined {
    const types = new Set<string>();
    for (const node of nodes) {
      const declared = node['type'];
      for (const type of Array.isArray(declared) ? declared : typeof declared === 'string' ? [declared] : [])
        types.add(type === 'integer' ? 'number' : String(type));
    }
    return types.size > 0 ? types : undefined;
  }

  /** The values the schemas name for a kind field's value (enum, const, examples), or undefined when they name none. */
  knownValues(nodes: SchemaNodes): ReadonlySet<unknown> | undefined {
    if (!this.valuesOf.has(nodes)) this.valuesOf.set(nodes, this.computeKnownValues(nodes));
    return this.valuesOf.get(nodes);
  }

  private computeKnownValues(nodes: SchemaNodes): ReadonlySet<unknown> | undefined {
    const values = new Set<unknown>();
    for (const node of nodes) {
      if (Array.isArray(node['enum'])) for (const value of node['enum']) values.add(value);
      if ('const' in node) values.add(node['const']);
      if (Array.isArray(node['examples'])) for (const value of node['examples']) values.add(value);
    }
    return values.size > 0 ? values : undefined;
  }

  /** The known values of `key` anywhere in the schema, the per-kind branches' `const`s included. */
  knownValuesOfKey(key: string): readonly unknown[] {
    const values = new Set<unknown>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) visit(item);
        return;
      }
      if (!isSchema(value)) return;
      const properties = value['properties'];
      if (isSchema(properties) && isSchema(properties[key]))
        for (const known of this.computeKnownValues([properties[key] as Schema]) ?? []) values.add(known);
      for (const child of Object.values(value)) visit(child);
    };
    visit(this.root);
    return [...values];
  }

  /**
   * The keys required of, and the keys named for, a record whose `key` is `value`, by the root's `allOf`
   * branches that pin it (`if` `key` const `value`, `then` …): what a record of that kind carries.
   */
  keysWhen(
    key: string,
    value: string,
  ): { readonly required: ReadonlySet<string>; readonly named: ReadonlySet<string> } {
    const required = new Set<string>();
    const named = new Set<string>();
    for (const branch of Array.isArray(this.root['allOf']) ? this.root['allOf'] : []) {
      if (!isSchema(branch) || !isSchema(branch['if']) || !isSchema(branch['then'])) continue;
      const pinned = branch['if']['properties'];
      if (!isSchema(pinned) || !isSchema(pinned[key]) || (pinned[key] as Schema)['const'] !== value) continue;
      for (const node of this.expand([branch['then']])) {
        for (const name of Array.isArray(node['required']) ? node['required'] : [])
          if (typeof name === 'string') required.add(name);
        if (isSchema(node['properties'])) for (const name of Object.keys(node['properties'])) named.add(name);
      }
    }
    return { required, named };
  }

  /** `nodes` with every schema they refer to or combine, each once. */
  private expand(nodes: SchemaNodes): SchemaNodes {
    const seen = new Set<Schema>();
    const pending = [...nodes];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      const reference = node['$ref'];
      if (typeof reference === 'string') {
        const target = this.resolve(reference);
        if (target) pending.push(target);
      }
      for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
        const branches = node[combinator];
        if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) pending.push(branch);
      }
      for (const conditional of ['then', 'else']) if (isSchema(node[conditional])) pending.push(node[conditional]);
    }
    return [...seen];
  }

  /** A reference inside the same schema (`#/$defs/name`); the schemas use no other kind. */
  private resolve(reference: string): Schema | undefined {
    if (!reference.startsWith('#/')) return undefined;
    let node: unknown = this.root;
    for (const part of reference.slice(2).split('/')) node = isSchema(node) ? node[part] : undefined;
    return isSchema(node) ? node : undefined;
  }
}

/**
 * A key that is not `name` but was most likely meant as it: equal once case, `_` and `-` are set aside,
 * or within a few edits of it. One byte flipped in a key is one edit (a byte that is not UTF-8 decodes to
 * one replacement character). The edits allowed grow with the name: none for a name of up to three
 * letters (`id`, `uid`: any two-letter key is two edits from `id`), one up to seven (`type`, `error`,
 * `phase`: `type` and `text` are two apart), two beyond (`task_name`, `verifier_environment_mode`,
 * whose `…_declared` sibling is eight edits away). A looser test would read unrelated keys as damage; a
 * stricter one would let a flipped letter through.
 */
export function shapedLike(key: string, name: string): boolean {
  return key !== name && normalizedShapedLike(normalized(key), name);
}

/** `shapedLike` for a key already normalised (and not `name` itself). */
function normalizedShapedLike(normalizedKey: string, name: string): boolean {
  const target = normalizedName(name);
  return withinEdits(normalizedKey, target, target.length <= 3 ? 0 : target.length <= 7 ? 1 : 2);
}

function normalized(key: string): string {
  return key.toLowerCase().replace(/[_\-]/g, '');
}

/**
 * Known names normalised once: they come from the schemas (and the few names the rules ask for), so
 * the map stays as small as they are; keys read from records are never kept here.
 */
const normalizedNames = new Map<string, string>();
function normalizedName(name: string): string {
  let target = normalizedNames.get(name);
  if (target === undefined) normalizedNames.set(name, (target = normalized(name)));
  return target;
}

/** Edit distance (insertions, deletions, substitutions) of at most `bound`, in one band of the table. */
function withinEdits(a: string, b: string, bound: number): boolean {
  if (Math.abs(a.length - b.length) > bound) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...current) > bound) return false;
    previous = current;
  }
  return previous[b.length]! <= bound;
}

/**
 * Whether a value read for `name` under `key` (`keyForFinding`) claims nothing: absent, or null under
 * `name` itself. Null under a damaged copy of the key is what is left of the claim, never its absence.
 */
export function claimsNothing(value: unknown, key: string, name: string): boolean {
  return value === undefined || (value === null && key === name);
}

/**
 * Whether a value read for a text field `name` under `key` (a task, an error) states something no writer
 * writes there: neither text nor `claimsNothing`. Read under the field's own key by default.
 */
export function unreadableText(value: unknown, key = '', name = key): boolean {
  return !claimsNothing(value, key, name) && typeof value !== 'string';
}

/**
 * The key a finding against the reward reads for `name` in the object at `path` of a `kind` record:
 * `name` itself, or, when it is absent, the damaged copy of it that the check reported (a task
 * mismatch, a banned key, an infrastructure error, counts that disagree). Reading it as what it
 * resembles keeps the finding it carried, so the damage cannot make the bundle look better. A rule that
 * proves something reads a damaged copy only where the record's schema finding already keeps the
 * rollout from being trusted (action records, facts/rows.ts): damaged evidence never makes one trusted.
 */
export function keyForFinding(
  kind: ArtifactKind,
  path: readonly (string | number)[],
  object: JsonObject,
  name: string,
): string {
  if (Object.prototype.hasOwnProperty.call(object, name)) return name;
  const knowledge = SchemaKnowledge.of(kind);
  const known = knowledge.knownKeys(
    path.reduce<SchemaNodes>((at, key) => knowledge.childNodes(at, key), knowledge.rootNodes()),
  );
  // In a free-form object no key is unknown, so none can be told to be damaged. `name` need not be a
  // key the schema names: a banned key (`gold_solution`) is not, and its damaged copy is still banned.
  if (!known) return name;
  return Object.keys(object).find((key) => !known.has(key) && shapedLike(key, name)) ?? name;
}
