/**
 * UTF-8 checks on raw bytes. The CLI reads files as bytes so that it can say exactly where a file stops
 * being UTF-8, which decoded text (with its replacement characters) can no longer tell.
 */
import { isUtf8 } from 'node:buffer';

export { isUtf8 };

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence, or -1. */
function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    const length = sequenceLength(lead);
    if (length === 0 || index + length > bytes.length) return index;
    for (let k = 1; k < length; k++) {
      if ((bytes[index + k]! & 0xc0) !== 0x80) return index;
    }
    if (!isWellFormedSequence(bytes, index, length)) return index;
    index += length;
  }
  return -1;
}

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Rejects overlong forms, UTF-16 surrogates and code points beyond U+10FFFF. */
function isWellFormedSequence(bytes: Uint8Array, index: number, length: number): boolean {
  const lead = bytes[index]!;
  const second = bytes[index + 1] ?? 0;
  if (length === 3) {
    if (lead === 0xe0 && second < 0xa0) return false;
    if (lead === 0xed && second > 0x9f) return false;
  }
  if (length === 4) {
    if (lead === 0xf0 && second < 0x90) return false;
    if (lead === 0xf4 && second > 0x8f) return false;
  }
  return true;
}

/** 3 when the bytes start with the UTF-8 byte order mark, which is not part of the text; else 0. */
export function utf8ByteOrderMarkLength(bytes: Uint8Array): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/**
 * Where `bytes` (found at `offsetInFile`) stop being UTF-8: the text before the first bad byte, whose
 * length places that byte where an editor shows it (everything before it is well formed, so it decodes
 * exactly), and what to say of it. Undefined when the bytes are well formed.
 */
export function invalidUtf8In(
  bytes: Uint8Array,
  offsetInFile: number,
): { readonly before: string; readonly message: string } | undefined {
  const offset = firstInvalidUtf8Offset(bytes);
  if (offset === -1) return undefined;
  return {
    before: Buffer.from(bytes.buffer, bytes.byteOffset, offset).toString('utf8'),
    message: describeInvalidUtf8(bytes.subarray(offset), offsetInFile + offset),
  };
}

/** A UTF-16 byte order mark means the file was saved in the wrong encoding, not that it is corrupt. */
function looksLikeUtf16(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
}

function describeInvalidUtf8(bytes: Uint8Array, offsetInFile: number): string {
  if (offsetInFile === 0 && looksLikeUtf16(bytes)) {
    return 'The file is UTF-16 (it starts with a UTF-16 byte order mark); BenchFlow artifacts are UTF-8.';
  }
  const shown = Array.from(bytes.subarray(0, 4), (byte) => byte.toString(16).padStart(2, '0')).join(' ');
  return `Invalid UTF-8 at byte offset ${offsetInFile} of the file (bytes ${shown}); the text here is read with replacement characters.`;
}
