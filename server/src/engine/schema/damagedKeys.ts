/**
 * Damaged keys: a key the schema does not know at its place but shaped like a known key the object
 * lacks (`task_nam%` beside no `task_name`) is a damaged copy of it, not an unknown extra. Unknown keys
 * are accepted so that a newer BenchFlow is not flagged, but a damaged one would hide the value the
 * rules read (the task, the counts, the error) and so make the bundle look better; it is a `schema`
 * finding (effect I) on the key, so a bundle with one is never trusted.
 *
 * Damaged kinds, likewise: an ACP trajectory row whose `type` is none the schema names but is shaped
 * like one (`tool_caLL`), or whose `phase` is shaped like a known phase without being one in any case
 * (`V5rifier`; `Verifier` is the verifier phase). Unknown row types and phases are accepted for newer
 * BenchFlow, and the rules pass over them, so a flipped letter would drop a pending tool call, a timeout
 * marker, a lifecycle annotation or a verifier-side row out of the evidence unseen. Each is compared as
 * the rules compare it: `type` exactly, `phase` in any case. An action record's `event_type` and
 * `phase` are not here: the action-record rules report those themselves (`action-kind-unknown`).
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import { codeInfo } from '../codes';
import type { Finding } from '../findings';
import { isJsonObject } from '../parse/jsonKind';
import { nodeAtPath, parseTreeSafely, propertyKeyNode, propertyValueNode, type JsonPath } from '../parse/jsonTree';
import { SchemaKnowledge, shapedLike, type SchemaNodes } from './knownKeys';
import type { RecordText } from './schemaFindings';

interface DamagedKey {
  readonly path: JsonPath;
  readonly key: string;
  readonly resembles: string;
}

/** The root fields, per kind, whose value the rules dispatch on, and whether they compare it in any case. */
interface KindField {
  readonly field: string;
  readonly anyCase: boolean;
}
const kindFieldsOf: Partial<Record<ArtifactKind, readonly KindField[]>> = {
  'acp-trajectory': [
    { field: 'type', anyCase: false },
    { field: 'phase', anyCase: true },
  ],
};

/** What a record with nothing damaged yields: shared, since nearly every record of a large file is one. */
const noFindings: readonly Finding[] = Object.freeze([]);

// The walk's stack of keys and what it finds, reused from record to record: the walk never runs inside
// itself, and each starts by emptying them, so that a clean record allocates nothing here.
const walkPath: (string | number)[] = [];
const walkFound: DamagedKey[] = [];

export function damagedKeyFindings(kind: ArtifactKind, record: RecordText): readonly Finding[] {
  const knowledge = SchemaKnowledge.of(kind);
  // Emptied only when a walk that threw left them so: setting an array's length is not free.
  if (walkPath.length > 0) walkPath.length = 0;
  if (walkFound.length > 0) walkFound.length = 0;
  collect(knowledge, record.value, rootPlaceOf(knowledge), walkPath, walkFound);
  let damagedKinds: { field: string; value: string; resembles: string }[] | undefined;
  for (const check of kindFieldChecksOf(kind, knowledge)) {
    const damagedKind = damagedKindOf(record.value, check);
    if (damagedKind) (damagedKinds ??= []).push(damagedKind);
  }
  if (walkFound.length === 0 && !damagedKinds) return noFindings;
  const damaged = walkFound.splice(0);
  const tree = parseTreeSafely(record.text);
  const rangeOf = (path: JsonPath, part: 'key' | 'value', key: string) => {
    const objectNode = tree ? nodeAtPath(tree, path) : undefined;
    const node = objectNode
      ? part === 'key'
        ? propertyKeyNode(objectNode, key)
        : propertyValueNode(objectNode, key)
      : undefined;
    return node ? record.rangeAt(node.offset, node.length) : record.rangeAt(0, record.text.length);
  };
  const findings: Finding[] = damaged.map(({ path, key, resembles }) => ({
    code: 'schema',
    severity: codeInfo('schema').severity,
    message: `${path.length === 0 ? 'The record' : `"${path.join('.')}"`}: the key ${JSON.stringify(key)} is shaped like ${JSON.stringify(resembles)}, which this record lacks: a damaged key is not an absent one.`,
    range: rangeOf(path, 'key', key),
  }));
  for (const { field, value, resembles } of damagedKinds ?? []) {
    findings.push({
      code: 'schema',
      severity: codeInfo('schema').severity,
      message: `"${field}": ${JSON.stringify(value)} is shaped like ${JSON.stringify(resembles)}, a ${field} the rules read: a damaged ${field} is not an unknown one, and the row would drop out of the evidence unseen.`,
      range: rangeOf([], 'value', field),
    });
  }
  return findings;
}

/** What BenchFlow's kinds and phases look like: snake case, in any case (`Verifier`). */
const kindShape = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The names a kind field may take, as the schemas list them, with their lower-case forms. */
interface KnownKindNames {
  readonly names: readonly string[];
  readonly exact: ReadonlySet<string>;
  readonly lowerCase: ReadonlySet<string>;
}

/** A kind field of a kind with the names the schemas give it: read off the schemas once, since every record asks. */
interface KindFieldCheck extends KindField {
  readonly known: KnownKindNames;
}

const kindFieldChecks = new Map<ArtifactKind, readonly KindFieldCheck[]>();

function kindFieldChecksOf(kind: ArtifactKind, knowledge: SchemaKnowledge): readonly KindFieldCheck[] {
  let checks = kindFieldChecks.get(kind);
  if (!checks) {
    checks = (kindFieldsOf[kind] ?? []).map((kindField) => ({
      ...kindField,
      known: knownKindNamesOf(knowledge, kindField.field),
    }));
    kindFieldChecks.set(kind, checks);
  }
  return checks;
}

function knownKindNamesOf(knowledge: SchemaKnowledge, field: string): KnownKindNames {
  const names = [...(knowledge.knownValues(knowledge.childNodes(knowledge.rootNodes(), field)) ?? [])].filter(
    (name): name is string => typeof name === 'string',
  );
  return { names, exact: new Set(names), lowerCase: new Set(names.map((name) => name.toLowerCase())) };
}

function damagedKindOf(
  record: unknown,
  { field, anyCase, known }: KindFieldCheck,
): { field: string; value: string; resembles: string } | undefined {
  if (!isJsonObject(record)) return undefined;
  const value = record[field];
  if (typeof value !== 'string') return undefined;
  if (anyCase ? known.lowerCase.has(value.toLowerCase()) : known.exact.has(value)) return undefined;
  // A value grown past a known name with what no writer puts in a kind (`agent_messagE` and 8,000 more
  // characters) is as damaged as a flipped letter; a new kind in snake case (`tool_call_update`) is not.
  const grown = (name: string) =>
    !kindShape.test(value) && value.toLowerCase().startsWith(name.slice(0, -1).toLowerCase());
  const resembles = known.names.find((name) => shapedLike(value, name) || grown(name));
  return resembles === undefined ? undefined : { field, value, resembles };
}

/**
 * A place in a record as the walk meets it: the schemas that describe it, the keys they name, and the
 * places below it, each read off the schemas once per kind and then found with one lookup, since every
 * key of every record passes here.
 */
class Place {
  /** The keys named here; undefined for a free-form object (or no object), where no key can be damaged. */
  readonly known: ReadonlySet<string> | undefined;
  /** No schema describes the value here, so nothing below it is walked. */
  readonly undescribed: boolean;
  /** Whether a schema here gives array items places by position (prefixItems); else every item has one place. */
  private readonly positional: boolean;
  private readonly byKey = new Map<string, Place>();
  private readonly byIndex = new Map<number, Place>();
  private items: Place | undefined;

  constructor(
    private readonly places: Places,
    readonly nodes: SchemaNodes,
  ) {
    this.known = places.knowledge.knownKeys(nodes);
    this.undescribed = nodes.length === 0;
    this.positional = nodes.some((node) => Array.isArray(node['prefixItems']));
  }

  child(key: string): Place {
    let place = this.byKey.get(key);
    if (!place) this.byKey.set(key, (place = this.places.at(this.places.knowledge.childNodes(this.nodes, key))));
    return place;
  }

  item(index: number): Place {
    if (!this.positional) return (this.items ??= this.places.at(this.places.knowledge.childNodes(this.nodes, index)));
    let place = this.byIndex.get(index);
    if (!place) this.byIndex.set(index, (place = this.places.at(this.places.knowledge.childNodes(this.nodes, index))));
    return place;
  }
}

/** One Place per node list of a kind's knowledge (its node lists are cached by identity, so places are shared). */
class Places {
  private readonly byNodes = new Map<SchemaNodes, Place>();
  /** Every place no schema describes, as one: each key of a free-form object gets an empty node list of its own. */
  private readonly undescribed: Place;
  readonly root: Place;

  constructor(readonly knowledge: SchemaKnowledge) {
    this.undescribed = new Place(this, []);
    this.root = this.at(knowledge.rootNodes());
  }

  at(nodes: SchemaNodes): Place {
    if (nodes.length === 0) return this.undescribed;
    let place = this.byNodes.get(nodes);
    if (!place) this.byNodes.set(nodes, (place = new Place(this, nodes)));
    return place;
  }
}

const placesByKnowledge = new WeakMap<SchemaKnowledge, Places>();

function rootPlaceOf(knowledge: SchemaKnowledge): Place {
  let places = placesByKnowledge.get(knowledge);
  if (!places) placesByKnowledge.set(knowledge, (places = new Places(knowledge)));
  return places.root;
}

/**
 * Walks only where the schemas describe the value: the walk ends with the schemas, however deep the record.
 * `path` is the walk's own stack, copied only into a damaged key found: every key of every record passes here.
 */
function collect(
  knowledge: SchemaKnowledge,
  value: unknown,
  place: Place,
  path: (string | number)[],
  damaged: DamagedKey[],
): void {
  if (place.undescribed) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item !== 'object' || item === null) continue;
      path.push(index);
      collect(knowledge, item, place.item(index), path, damaged);
      path.pop();
    }
    return;
  }
  if (!isJsonObject(value)) return;
  const known = place.known;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (known && !known.has(key)) {
      const resembles = knowledge.damagedCopyOf(place.nodes, value, key);
      if (resembles !== undefined) {
        damaged.push({ path: [...path], key, resembles });
        continue;
      }
    }
    const child: unknown = value[key];
    if (typeof child !== 'object' || child === null) continue;
    path.push(key);
    collect(knowledge, child, place.child(key), path, damaged);
    path.pop();
  }
}
