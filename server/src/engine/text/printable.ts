/**
 * Text made safe to show a person: a folder name, a path or any other bundle text printed to a terminal or
 * a log. Control characters (C0, DEL, C1) could end a line early and forge the next one (a rollout folder
 * named `x\nverdict trusted`), or reach the terminal as an escape sequence (ESC [ ...) that recolours,
 * moves the cursor or rewrites what was shown; the Unicode line and paragraph separators end a line in
 * some editors and log viewers; the bidirectional controls reorder what is shown around them (Trojan
 * Source). Each is written as the escape JSON uses for it (`\n`, `\u001b`, `\u202e`), so that the
 * reader sees it was there and which it was; every other character is kept as it is.
 */

const unprintable = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const everyUnprintable = new RegExp(unprintable.source, 'gu');

const shortEscapes: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with each character that could rewrite a line or a terminal escaped: one line, shown as it is. */
export function printable(text: string): string {
  // Most text has nothing to escape: tested first, so it is returned without a copy.
  return unprintable.test(text) ? text.replace(everyUnprintable, escape) : text;
}

/** Each line of `text` made printable, its own line breaks kept: for text that is several lines on purpose. */
export function printableLines(text: string): string {
  return unprintable.test(text) ? text.split('\n').map(printable).join('\n') : text;
}

function escape(character: string): string {
  return shortEscapes[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
