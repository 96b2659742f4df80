/**
 * What the schemas in `schemas/` (as the engine bundles them) say is known at a place in a record: the
 * keys an object may carry and the values a kind-bearing field may take. The fuzzer's damage rule reads
 * this, so the lists stay where they are kept: in the schemas.
 */
import type { ArtifactKind } from '../../shared/src/artifactKinds';
import { schemaByKind } from '../../server/src/engine/schema/catalog';

type Schema = Readonly<Record<string, unknown>>;

/**
 * The fields the engine dispatches on: their value picks what a record is (`event_type`, a row's
 * `type`), where it counts (`phase`, `service` is deliberately not here: a compose service is any
 * name) or what it claims (`status`, `mode`). The schemas list their known values as `enum`, `const`
 * (in the per-kind branches) or `examples` (where the set is left open so that newer BenchFlow files
 * are not flagged); a value outside those is a kind the rules do not know.
 */
export const kindFields: ReadonlySet<string> = new Set(['event_type', 'type', 'phase', 'status', 'mode', 'verifier_environment_mode']);

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

export class SchemaKnowledge {
  private constructor(private readonly root: Schema) {}

  static of(kind: ArtifactKind): SchemaKnowledge {
    return new SchemaKnowledge(schemaByKind[kind] as Schema);
  }

  /** The schemas that apply at the root (every branch of allOf/anyOf/oneOf/if/then/else and $ref). */
  rootNodes(): readonly Schema[] {
    return this.expand([this.root]);
  }

  /** The schemas of property `key` (or of an array's items, when `key` is a number) under `nodes`. */
  childNodes(nodes: readonly Schema[], key: string | number): readonly Schema[] {
    const children: Schema[] = [];
    for (const node of nodes) {
      if (typeof key === 'number') {
        if (isSchema(node['items'])) children.push(node['items']);
        if (Array.isArray(node['prefixItems']) && isSchema(node['prefixItems'][key])) children.push(node['prefixItems'][key] as Schema);
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
  isKnownKey(nodes: readonly Schema[], key: string): boolean {
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
   * The JSON types the schemas allow here (`integer` read as `number`), or undefined when none says:
   * a value changed to another allowed type (a `return_code` of null, a root `sandbox_user`) is a value.
   */
  allowedTypes(nodes: readonly Schema[]): ReadonlySet<string> | undefined {
    const types = new Set<string>();
    for (const node of nodes) {
      const declared = node['type'];
      for (const type of Array.isArray(declared) ? declared : typeof declared === 'string' ? [declared] : []) types.add(type === 'integer' ? 'number' : String(type));
    }
    return types.size > 0 ? types : undefined;
  }

  /** The values the schemas name for a kind field's value (enum, const, examples), or undefined when they name none. */
  knownValues(nodes: readonly Schema[]): ReadonlySet<unknown> | undefined {
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
      if (isSchema(properties) && isSchema(properties[key])) for (const known of this.knownValues([properties[key] as Schema]) ?? []) values.add(known);
      for (const child of Object.values(value)) visit(child);
    };
    visit(this.root);
    return [...values];
  }

  /** `nodes` with every schema they refer to or combine, each once. */
  private expand(nodes: readonly Schema[]): readonly Schema[] {
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
