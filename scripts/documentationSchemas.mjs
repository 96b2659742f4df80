// The schemas VS Code's JSON support gets through the manifest's `jsonValidation`: copies of schemas/
// that keep what documents a field (descriptions, titles, examples, the values a field takes as
// examples) and no keyword that validates. The language server owns every diagnostic of the JSON
// artifacts, with the CLI's codes and messages; these copies give hover and completion and nothing to
// report. They allow comments and trailing commas, so that VS Code leaves those to the server too.
/** Kept as they are: they only describe. */
const annotations = new Set([
  '$schema',
  '$comment',
  'title',
  'description',
  'markdownDescription',
  'default',
  'examples',
  'enumDescriptions',
  'markdownEnumDescriptions',
  'defaultSnippets',
  'doNotSuggest',
]);
/** Maps of names to subschemas. */
const subschemaMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
/** Lists of subschemas every one of which may apply: documentation-only, any of them matches. */
const subschemaLists = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** A schema (or a boolean schema) reduced to its documentation. */
export function documentationOnly(schema) {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  const copy = {};
  const examples = [];
  const alternatives = [];
  for (const [key, value] of Object.entries(schema)) {
    if (annotations.has(key) && key !== 'examples') copy[key] = value;
    else if (key === 'examples' && Array.isArray(value)) examples.push(...value);
    // The values a field takes are proposed by completion as examples, and never checked.
    else if (key === 'enum' && Array.isArray(value)) examples.push(...value);
    else if (key === 'const') examples.push(value);
    else if (key === '$ref' && typeof value === 'string') copy[key] = value;
    else if (subschemaMaps.has(key) && typeof value === 'object' && value !== null)
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, subschema]) => [name, documentationOnly(subschema)]),
      );
    // oneOf would fail when several documentation-only branches match, which they all do: anyOf.
    else if (subschemaLists.has(key) && Array.isArray(value)) alternatives.push(...value.map(documentationOnly));
    else if (key === 'items' && typeof value === 'object' && value !== null)
      copy.items = Array.isArray(value) ? value.map(documentationOnly) : documentationOnly(value);
    else if ((key === 'additionalProperties' || key === 'propertyNames') && typeof value === 'object' && value !== null)
      copy[key] = documentationOnly(value);
    // A conditional's branches still document their fields; with nothing to check, any may apply.
    else if ((key === 'then' || key === 'else') && typeof value === 'object' && value !== null)
      alternatives.push(documentationOnly(value));
    // Everything else (type, required, enum's checks, minimum, pattern, if, not, false schemas…) validates.
  }
  if (examples.length > 0)
    copy.examples = [...new Map(examples.map((example) => [JSON.stringify(example), example])).values()];
  if (alternatives.length > 0) copy.anyOf = alternatives;
  return copy;
}

/** The text of the documentation-only copy of a schema's text, as VS Code is given it. */
export function documentationSchemaText(schemaText) {
  const copy = { ...documentationOnly(JSON.parse(schemaText)), allowComments: true, allowTrailingCommas: true };
  return `${JSON.stringify(copy, null, 2)}\n`;
}
