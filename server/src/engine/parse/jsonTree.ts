/**
 * Finding a key or value in JSON text by its path, for diagnostics that point at exactly the part of a
 * record they concern. The tree is built (jsonc-parser) only for the few records a finding needs.
 */
import { parseTree, type Node as SyntaxNode } from 'jsonc-parser';

export type { SyntaxNode };
export type JsonPath = readonly (string | number)[];

export function parseTreeSafely(text: string): SyntaxNode | undefined {
  try {
    return parseTree(text, [], { disallowComments: true });
  } catch {
    // jsonc-parser recurses per nesting level; an absurdly deep record has no usable tree.
    return undefined;
  }
}

export function nodeAtPath(root: SyntaxNode, path: JsonPath): SyntaxNode | undefined {
  let node: SyntaxNode | undefined = root;
  for (const segment of path) {
    if (!node) return undefined;
    if (node.type === 'object') node = propertyValueNode(node, String(segment));
    else if (node.type === 'array') node = node.children?.[Number(segment)];
    else return undefined;
  }
  return node;
}

function propertyNode(objectNode: SyntaxNode, name: string): SyntaxNode | undefined {
  if (objectNode.type !== 'object') return undefined;
  // The last occurrence wins, as it does for JSON.parse when a key is repeated.
  let found: SyntaxNode | undefined;
  for (const property of objectNode.children ?? []) {
    if (property.children?.[0]?.value === name) found = property;
  }
  return found;
}

export function propertyValueNode(objectNode: SyntaxNode, name: string): SyntaxNode | undefined {
  return propertyNode(objectNode, name)?.children?.[1];
}

export function propertyKeyNode(objectNode: SyntaxNode, name: string): SyntaxNode | undefined {
  return propertyNode(objectNode, name)?.children?.[0];
}

export function keyOfValue(valueNode: SyntaxNode): SyntaxNode | undefined {
  const parent = valueNode.parent;
  return parent?.type === 'property' ? parent.children?.[0] : undefined;
}

/**
 * The offset and length of the value at `path` (or of its key) in `text`, whose tree is given,
 * falling back to the nearest existing ancestor so that a finding always lands somewhere sensible.
 */
export function locate(
  text: string,
  tree: SyntaxNode | undefined,
  path: JsonPath,
  part: 'value' | 'key' = 'value',
): { offset: number; length: number } {
  if (!tree) return { offset: 0, length: text.length };
  for (let depth = path.length; depth >= 0; depth--) {
    const node = nodeAtPath(tree, path.slice(0, depth));
    if (!node) continue;
    const target = part === 'key' && depth === path.length ? (keyOfValue(node) ?? node) : node;
    return { offset: target.offset, length: target.length };
  }
  return { offset: tree.offset, length: tree.length };
}
