/**
 * Turns ajv errors into `schema` findings on the exact key or value they concern. ajv reports JSON
 * pointers, not text, so the record's text is parsed into a syntax tree (jsonc-parser) only when it has
 * errors, and each pointer is walked down that tree.
 */
import type { ErrorObject } from 'ajv';
import { codeInfo } from '../codes';
import type { Finding, TextRange } from '../findings';
import {
  keyOfValue,
  nodeAtPath,
  parseTreeSafely,
  propertyKeyNode,
  propertyValueNode,
  type SyntaxNode,
} from '../parse/jsonTree';
import { describeValue, isJsonObject, jsonTypeOf, quotedText, shownPrefix, withArticle } from '../parse/jsonKind';

export interface RecordText {
  /** The record's JSON text: one JSONL line, or a whole JSON document. */
  readonly text: string;
  /** The parsed record (the value the errors were computed on). */
  readonly value: unknown;
  /** Maps an offset and length in `text` to a range in the file. */
  readonly rangeAt: (offset: number, length: number) => TextRange;
}

/** Properties that name a record's variant; a missing-property error at the root is shown on them. */
const discriminators = ['type', 'event_type'] as const;

export function schemaFindings(errors: readonly ErrorObject[], record: RecordText): Finding[] {
  const relevant = errors.filter((error) => error.keyword !== 'if' && error.keyword !== 'propertyNames');
  if (relevant.length === 0) return [];
  const tree = parseTreeSafely(record.text);
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const error of relevant) {
    const key = `${error.instancePath}\u0000${error.keyword}\u0000${error.propertyName ?? ''}\u0000${requiredName(error) ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({
      code: 'schema',
      severity: codeInfo('schema').severity,
      message: describeError(error, record.value),
      range: rangeOfError(error, tree, record),
    });
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------------
// Ranges

function rangeOfError(error: ErrorObject, tree: SyntaxNode | undefined, record: RecordText): TextRange {
  const whole = record.rangeAt(0, record.text.length);
  if (!tree) return whole;
  const segments = pointerSegments(error.instancePath);
  const node = nodeAtPath(tree, segments);
  if (!node) return whole;

  if (error.propertyName !== undefined) {
    const keyNode = propertyKeyNode(node, error.propertyName);
    return keyNode ? rangeOf(keyNode, record) : rangeOf(node, record);
  }
  if (error.keyword === 'required') {
    if (segments.length === 0) {
      const discriminator = discriminators
        .map((name) => propertyValueNode(node, name))
        .find((found) => found !== undefined);
      return discriminator ? rangeOf(discriminator, record) : record.rangeAt(node.offset, 1);
    }
    const key = keyOfValue(node);
    return key ? rangeOf(key, record) : record.rangeAt(node.offset, 1);
  }
  return rangeOf(node, record);
}

function rangeOf(node: SyntaxNode, record: RecordText): TextRange {
  return record.rangeAt(node.offset, node.length);
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

// ---------------------------------------------------------------------------------------------------
// Messages: name the field, say what was expected, show what was found.

function describeError(error: ErrorObject, root: unknown): string {
  const segments = pointerSegments(error.instancePath);
  const field = fieldLabel(root, segments);
  const value = valueAtPointer(root, segments);
  const params = error.params as Record<string, unknown>;

  if (error.propertyName !== undefined) {
    return `Property name ${quotedText(error.propertyName)} in ${field}: ${expectation(error)}.`;
  }
  switch (error.keyword) {
    case 'required': {
      const missing = quote(String(params['missingProperty']));
      return segments.length === 0
        ? `${recordLabel(root)} is missing the required property ${missing}.`
        : `${field} is missing the required property ${missing}.`;
    }
    default:
      return `${field}: ${expectation(error)}, found ${describeFound(value)}.`;
  }
}

function expectation(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `expected ${String(params['type']).split(',').map(withArticle).join(' or ')}`;
    case 'enum':
      return `expected one of ${(params['allowedValues'] as unknown[]).map((allowed) => JSON.stringify(allowed)).join(', ')}`;
    case 'const':
      return `expected ${JSON.stringify(params['allowedValue'])}`;
    case 'minLength':
      return params['limit'] === 1
        ? 'expected a non-empty string'
        : `expected at least ${String(params['limit'])} characters`;
    case 'minimum':
      return `expected a number ≥ ${String(params['limit'])}`;
    case 'maximum':
      return `expected a number ≤ ${String(params['limit'])}`;
    case 'exclusiveMinimum':
      return `expected a number > ${String(params['limit'])}`;
    case 'pattern':
      return `expected text matching ${String(params['pattern'])}`;
    case 'minItems':
      return `expected at least ${String(params['limit'])} items`;
    default:
      return `expected a value that ${error.message ?? 'matches the schema'}`;
  }
}

function recordLabel(root: unknown): string {
  if (isJsonObject(root)) {
    for (const name of discriminators) {
      const variant = root[name];
      if (typeof variant === 'string' && variant !== '') return `A ${shownPrefix(variant)} record`;
    }
  }
  return 'The record';
}

function fieldLabel(root: unknown, segments: readonly string[]): string {
  if (segments.length === 0) return 'The record';
  let label = '';
  let value = root;
  for (const segment of segments) {
    if (Array.isArray(value)) {
      label += `[${segment}]`;
      value = value[Number(segment)];
    } else {
      label += label === '' ? segment : `.${segment}`;
      value = isJsonObject(value) && Object.prototype.hasOwnProperty.call(value, segment) ? value[segment] : undefined;
    }
  }
  return quote(label);
}

function valueAtPointer(root: unknown, segments: readonly string[]): unknown {
  let value = root;
  for (const segment of segments) {
    if (Array.isArray(value)) value = value[Number(segment)];
    else if (isJsonObject(value) && Object.prototype.hasOwnProperty.call(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

/** A found value with its type named: `string "abc"`, `number 42`, `an object`. */
function describeFound(value: unknown): string {
  const type = jsonTypeOf(value);
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean':
      return `${type} ${describeValue(value)}`;
    case 'null':
      return 'null';
    case 'array':
      return `an array of ${(value as unknown[]).length} items`;
    case 'object':
      return withArticle(type);
  }
}

function quote(text: string): string {
  return `"${text}"`;
}

function requiredName(error: ErrorObject): string | undefined {
  return error.keyword === 'required'
    ? String((error.params as Record<string, unknown>)['missingProperty'])
    : undefined;
}
