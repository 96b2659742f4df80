/**
 * Damaged keys: a key the schema does not know at its place but shaped like a known key the object
 * lacks (`task_nam%` beside no `task_name`) is a damaged copy of it, not an unknown extra. Unknown keys
 * are accepted so that a newer BenchFlow is not flagged, but a damaged one would hide the value the
 * rules read (the task, the counts, the error) and so make the bundle look better; it is a `schema`
 * finding (effect I) on the key, so a bundle with one is never trusted.
 *
 * Damaged kinds, likewise: an ACP trajectory row whose `type` is none the schema names but is shaped
 * like one (`tool_caLL`). Unknown row types are accepted for newer BenchFlow, and the rules pass over
 * them, so a flipped letter would drop a pending tool call, a timeout marker or a lifecycle annotation
 * out of the evidence unseen. Only this field: the rules compare it exactly, while an action record's
 * `event_type` and `phase`, which they compare in any case, are the rules' own `action-kind-unknown`
 * (and a phase `Verifier` is the verifier phase, not damage).
 */
import type { ArtifactKind } from '../../../../shared/src/artifactKinds';
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

/** The root field, per kind, whose value picks the record's kind and is compared exactly by the rules. */
const exactKindField: Partial<Record<ArtifactKind, string>> = { 'acp-trajectory': 'type' };

export function damagedKeyFindings(kind: ArtifactKind, record: RecordText): Finding[] {
  const knowledge = SchemaKnowledge.of(kind);
  const damaged: DamagedKey[] = [];
  collect(knowledge, record.value, knowledge.rootNodes(), [], damaged);
  const kindField = exactKindField[kind];
  const damagedKind = kindField === undefined ? undefined : damagedKindOf(knowledge, record.value, kindField);
  if (damaged.length === 0 && !damagedKind) return [];
  const tree = parseTreeSafely(record.text);
  const rangeOf = (path: JsonPath, part: 'key' | 'value', key: string) => {
    const objectNode = tree ? nodeAtPath(tree, path) : undefined;
    const node = objectNode ? (part === 'key' ? propertyKeyNode(objectNode, key) : propertyValueNode(objectNode, key)) : undefined;
    return node ? record.rangeAt(node.offset, node.length) : record.rangeAt(0, record.text.length);
  };
  const findings: Finding[] = damaged.map(({ path, key, resembles }) => ({
    code: 'schema',
    severity: 'error',
    message: `${path.length === 0 ? 'The record' : `"${path.join('.')}"`}: the key ${JSON.stringify(key)} is shaped like ${JSON.stringify(resembles)}, which this record lacks: a damaged key is not an absent one.`,
    range: rangeOf(path, 'key', key),
  }));
  if (damagedKind && kindField !== undefined) {
    findings.push({
      code: 'schema',
      severity: 'error',
      message: `"${kindField}": ${JSON.stringify(damagedKind.value)} is shaped like ${JSON.stringify(damagedKind.resembles)}, a ${kindField} the rules read: a damaged ${kindField} is not an unknown one, and the row would drop out of the evidence unseen.`,
      range: rangeOf([], 'value', kindField),
    });
  }
  return findings;
}

function damagedKindOf(knowledge: SchemaKnowledge, value: unknown, field: string): { value: string; resembles: string } | undefined {
  if (!isJsonObject(value)) return undefined;
  const found = value[field];
  if (typeof found !== 'string') return undefined;
  const known = knowledge.knownValues(knowledge.childNodes(knowledge.rootNodes(), field));
  if (!known || known.has(found)) return undefined;
  const resembles = [...known].find((name): name is string => typeof name === 'string' && shapedLike(found, name));
  return resembles === undefined ? undefined : { value: found, resembles };
}

/** Walks only where the schemas describe the value: the walk ends with the schemas, however deep the record. */
function collect(knowledge: SchemaKnowledge, value: unknown, nodes: SchemaNodes, path: JsonPath, damaged: DamagedKey[]): void {
  if (nodes.length === 0) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => collect(knowledge, item, knowledge.childNodes(nodes, index), [...path, index], damaged));
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const resembles = knowledge.damagedCopyOf(nodes, value, key);
    if (resembles !== undefined) {
      damaged.push({ path, key, resembles });
      continue;
    }
    collect(knowledge, value[key], knowledge.childNodes(nodes, key), [...path, key], damaged);
  }
}
