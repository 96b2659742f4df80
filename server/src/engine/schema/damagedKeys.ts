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

export function damagedKeyFindings(kind: ArtifactKind, record: RecordText): Finding[] {
  const knowledge = SchemaKnowledge.of(kind);
  const damaged: DamagedKey[] = [];
  collect(knowledge, record.value, knowledge.rootNodes(), [], damaged);
  const damagedKinds: { field: string; value: string; resembles: string }[] = [];
  for (const kindField of kindFieldsOf[kind] ?? []) {
    const damagedKind = damagedKindOf(knowledge, record.value, kindField);
    if (damagedKind) damagedKinds.push(damagedKind);
  }
  if (damaged.length === 0 && damagedKinds.length === 0) return [];
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
  for (const { field, value, resembles } of damagedKinds) {
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

/** Per kind's knowledge and field, read off the schemas once: every record of a file asks. */
const knownKindNames = new WeakMap<SchemaKnowledge, Map<string, KnownKindNames>>();

function knownKindNamesOf(knowledge: SchemaKnowledge, field: string): KnownKindNames {
  let byField = knownKindNames.get(knowledge);
  if (!byField) knownKindNames.set(knowledge, (byField = new Map()));
  let known = byField.get(field);
  if (!known) {
    const names = [...(knowledge.knownValues(knowledge.childNodes(knowledge.rootNodes(), field)) ?? [])].filter(
      (name): name is string => typeof name === 'string',
    );
    known = { names, exact: new Set(names), lowerCase: new Set(names.map((name) => name.toLowerCase())) };
    byField.set(field, known);
  }
  return known;
}

function damagedKindOf(
  knowledge: SchemaKnowledge,
  record: unknown,
  { field, anyCase }: KindField,
): { field: string; value: string; resembles: string } | undefined {
  if (!isJsonObject(record)) return undefined;
  const value = record[field];
  if (typeof value !== 'string') return undefined;
  const known = knownKindNamesOf(knowledge, field);
  if (anyCase ? known.lowerCase.has(value.toLowerCase()) : known.exact.has(value)) return undefined;
  // A value grown past a known name with what no writer puts in a kind (`agent_messagE` and 8,000 more
  // characters) is as damaged as a flipped letter; a new kind in snake case (`tool_call_update`) is not.
  const grown = (name: string) =>
    !kindShape.test(value) && value.toLowerCase().startsWith(name.slice(0, -1).toLowerCase());
  const resembles = known.names.find((name) => shapedLike(value, name) || grown(name));
  return resembles === undefined ? undefined : { field, value, resembles };
}

/**
 * Walks only where the schemas describe the value: the walk ends with the schemas, however deep the record.
 * `path` is the walk's own stack, copied only into a damaged key found: every key of every record passes here.
 */
function collect(
  knowledge: SchemaKnowledge,
  value: unknown,
  nodes: SchemaNodes,
  path: (string | number)[],
  damaged: DamagedKey[],
): void {
  if (nodes.length === 0) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      collect(knowledge, value[index], knowledge.childNodes(nodes, index), path, damaged);
      path.pop();
    }
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const resembles = knowledge.damagedCopyOf(nodes, value, key);
    if (resembles !== undefined) {
      damaged.push({ path: [...path], key, resembles });
      continue;
    }
    path.push(key);
    collect(knowledge, value[key], knowledge.childNodes(nodes, key), path, damaged);
    path.pop();
  }
}
