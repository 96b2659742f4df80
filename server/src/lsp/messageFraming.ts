/**
 * A guard in front of the stdio message reader: it checks each LSP message header as its bytes arrive
 * and passes the bytes on unchanged while they frame messages as LSP says (header lines `Name: value`,
 * each ended by CRLF, the header ended by an empty line, one `Content-Length` of decimal digits, then that
 * many bytes of body).
 *
 * vscode-jsonrpc's reader cannot recover from a header it cannot read: after `Content-Length: abc` it
 * reports an error and reads on from wherever the bytes stop, and `Content-Length: -5` leaves it reading a
 * body of negative length, so the connection is never usable again. It also looks for the end of a
 * header from the start of everything buffered each time bytes arrive, so a header that never ends costs
 * time quadratic in its length. The guard reads every byte once, keeps at most one header's bytes
 * (bounded), and on the first fault reports it and passes nothing more: the connection cannot be trusted
 * from there, and the server ends (server.ts).
 */
import { constants } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { shownPrefix } from '../engine/parse/jsonKind';
import { printable } from '../engine/text/printable';

/** A header is two short lines: one this long without its end is not a header. */
export const maxHeaderBytes = 4096;

/**
 * The reader decodes each body into one string: a longer body than the longest string V8 makes cannot
 * be read, and is refused before it is buffered.
 */
export const maxContentLength = constants.MAX_STRING_LENGTH;

const carriageReturn = 0x0d;
const lineFeed = 0x0a;
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Follows the framing of a byte stream, chunk by chunk, in time linear in its length. `check` returns
 * what is wrong with the stream so far, or undefined while it is well framed.
 */
export class MessageFraming {
  /** Bytes of body still to come; -1 while reading a header. */
  private bodyRemaining = -1;
  private readonly header = Buffer.alloc(maxHeaderBytes);
  private headerLength = 0;
  /** Of the header's end, CR LF CR LF: how many bytes have been seen in a row. */
  private endMatched = 0;

  check(chunk: Uint8Array): string | undefined {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.bodyRemaining >= 0) {
        const taken = Math.min(this.bodyRemaining, chunk.length - offset);
        this.bodyRemaining -= taken;
        offset += taken;
        if (this.bodyRemaining === 0) this.bodyRemaining = -1;
        continue;
      }
      const byte = chunk[offset++]!;
      if (this.headerLength === maxHeaderBytes)
        return `a message header of more than ${maxHeaderBytes} bytes has no end (an empty line, CR LF CR LF)`;
      this.header[this.headerLength++] = byte;
      this.endMatched = nextEndMatched(this.endMatched, byte);
      if (this.endMatched < 4) continue;
      const length = contentLengthOf(this.header.subarray(0, this.headerLength - 4));
      if (typeof length === 'string') return length;
      this.headerLength = 0;
      this.endMatched = 0;
      // A body of no bytes is framed too: the reader reports that it is no JSON and reads the next message.
      this.bodyRemaining = length;
    }
    return undefined;
  }
}

/** CR LF CR LF matched so far, after `byte`: a CR after a broken match may start a new one. */
function nextEndMatched(matched: number, byte: number): number {
  const expected = matched % 2 === 0 ? carriageReturn : lineFeed;
  if (byte === expected) return matched + 1;
  return byte === carriageReturn ? 1 : 0;
}

/** The body's length the header's lines give, or what is wrong with them. */
function contentLengthOf(header: Buffer): number | string {
  let contentLength: string | undefined;
  for (const line of header.toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon);
    if (!headerName.test(name) || /[^\x20-\x7e\t]/.test(line))
      return `a message header line is not "Name: value": ${shown(line)}`;
    if (name.toLowerCase() !== 'content-length') continue;
    if (contentLength !== undefined) return 'a message header gives Content-Length twice';
    contentLength = line.slice(colon + 1).trim();
  }
  if (contentLength === undefined) return 'a message header has no Content-Length';
  if (!/^\d+$/.test(contentLength))
    return `a message header's Content-Length is not a whole number of bytes: ${shown(contentLength)}`;
  const length = contentLength.length > 16 ? Infinity : Number(contentLength);
  if (length > maxContentLength)
    return `a message header's Content-Length ${shown(contentLength)} is more than the ${maxContentLength} bytes a message may have`;
  return length;
}

/** A header's text as a message quotes it: cut short, quoted, every control byte escaped. */
function shown(text: string): string {
  return printable(JSON.stringify(shownPrefix(text, 40)));
}

/**
 * The guard as a stream: the bytes pass unchanged while the framing holds. At the first fault nothing
 * more passes and `onFault` is told once; the caller ends the connection.
 */
export class MessageFramingGuard extends Transform {
  private readonly framing = new MessageFraming();
  private faulted = false;

  constructor(private readonly onFault: (problem: string) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.faulted) return callback();
    const problem = this.framing.check(chunk);
    if (problem === undefined) return callback(null, chunk);
    this.faulted = true;
    callback();
    this.onFault(problem);
  }
}
