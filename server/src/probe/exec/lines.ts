/** Longer lines are passed on in pieces of this length (the probe's own are under 200 bytes): a target must not make us hold an endless line. */
const maxLineLength = 4096;

/** Splits a byte stream into text lines as it arrives, so a transcript can follow a running probe. */
export class LineSplitter {
  private pending = '';
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Uint8Array): void {
    const text = this.pending + this.decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    while (this.pending.length > maxLineLength) {
      this.onLine(this.pending.slice(0, maxLineLength));
      this.pending = this.pending.slice(maxLineLength);
    }
  }

  end(): void {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    if (rest !== '') this.onLine(rest);
  }
}
