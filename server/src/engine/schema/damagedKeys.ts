/**
 * Damaged keys: a key the schema does not know at its place but shaped like a known key the object
 * lacks (`task_nam%` beside no `task_name`) is a damaged copy of it, not an unknown extra. Unknown keys
 * are accepted so that a newer BenchFlow is not flagged, but a damaged one would hide the value the
 * rules read (the task, the counts, the error) and so make the bundle look better; it is a `schema`
 * finding (effect I) on the key, so a bundle with one is never trusted.
 */
import type { ArtifactKind } from '../../../../shared/src/artifactKinds';
import type { Finding } from '../findings';
import { isJsonObject } from '../parse/jsonKind';
import { nodeAtPath, parseTreeSafely, propertyKeyNode, type JsonPath } from '../parse/jsonTree';
import { SchemaKnowledge, type SchemaNodes } from './knownKeys';
import type { RecordText } from './schemaFindings';

interface DamagedKey {
  readonly path: JsonPath;
  readonly key: string;
  readonly resembles: string;
}

export function damagedKeyFindings(kind: ArtifactKind, record: RecordText): Finding[] {
  const knowledge = SchemaKnowledge.of(kind);
  const damaged: DamagedKey[] = [];
  collect(knowledge, record.value, knowledge.rootNodes(), [], damaged);
  if (damaged.length === 0) return [];
  const tree = parseTreeSafely(record.text);
  return damaged.map(({ path, key, resembles }) => {
    const objectNode = tree ? nodeAtPath(tree, path) : undefined;
    const keyNode = objectNode ? propertyKeyNode(objectNode, key) : undefined;
    const where = path.length === 0 ? 'The record' : `"${path.join('.')}"`;
    return {
      code: 'schema',
      severity: 'error',
      message: `${where}: the key ${JSON.stringify(key)} is shaped like ${JSON.stringify(resembles)}, which this record lacks: a damaged key is not an absent one.`,
      range: keyNode ? record.rangeAt(keyNode.offset, keyNode.length) : record.rangeAt(0, record.text.length),
    };
  });
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
