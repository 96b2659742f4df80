/**
 * Copies of strings that share no memory with the string they came from. V8 represents a `slice` of a
 * long string as a view that keeps the whole original alive, and a concatenation as a pair of pointers
 * to its parts; so a line cut out of a document version and kept (in a finding, in a record's facts)
 * keeps that entire version in memory, and a language server that keeps lines across edits keeps every
 * version. A copy made here is decoded from bytes into a new string, which no V8 optimisation can
 * turn back into a view.
 */

/** Reused for the common case, so that copying a line allocates only the new string. */
const scratch = Buffer.allocUnsafe(64 * 1024);
/** A code unit beyond Latin-1: such text needs two bytes per unit to round-trip. */
const beyondLatin1 = /[^\u0000-\u00ff]/;

export function detachedCopy(text: string): string {
  if (text.length === 0) return '';
  // Latin-1 (all of ASCII) round-trips one byte per unit, and V8 then stores the copy one byte per unit too.
  if (!beyondLatin1.test(text)) {
    if (text.length <= scratch.length) return scratch.toString('latin1', 0, scratch.write(text, 0, 'latin1'));
    return Buffer.from(text, 'latin1').toString('latin1');
  }
  // UTF-16LE carries every code unit as it is, lone surrogates included (UTF-8 would replace them).
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
