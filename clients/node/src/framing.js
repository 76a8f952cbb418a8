// Message framing: LSP headers (`Content-Length: N\r\n\r\n` + body) or newline-delimited JSON.
// Kept apart from the client so that raw-protocol tools (the conformance runner) can use it.

export const LSP = 'lsp';
export const NDJSON = 'ndjson';

/** One frame around `body` (a Buffer or string of JSON text). */
export function encodeBody(body, framing = LSP) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (framing === LSP) return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
  if (framing === NDJSON) {
    if (bytes.includes(0x0a)) throw new Error('an NDJSON body cannot contain a newline');
    return Buffer.concat([bytes, Buffer.from('\n')]);
  }
  throw new Error(`unknown framing ${framing}`);
}

/** `message` as compact JSON text in one frame. */
export function encode(message, framing = LSP) {
  return encodeBody(JSON.stringify(message), framing);
}

/** Turns chunks of bytes into whole frame bodies. `push(chunk)` returns the bodies completed. */
export class FrameDecoder {
  constructor(framing = LSP) {
    if (framing !== LSP && framing !== NDJSON) throw new Error(`unknown framing ${framing}`);
    this.framing = framing;
    this.buffer = Buffer.alloc(0);
    this.expected = null;
  }

  push(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const bodies = [];
    for (;;) {
      const body = this.framing === LSP ? this.#nextLSP() : this.#nextLine();
      if (body === null) return bodies;
      bodies.push(body);
    }
  }

  /** True when input stopped inside a frame. */
  get partial() {
    return this.expected !== null || (this.framing === LSP ? this.buffer.length > 0 : this.buffer.toString().trim() !== '');
  }

  #nextLine() {
    for (;;) {
      const end = this.buffer.indexOf(0x0a);
      if (end < 0) return null;
      let line = this.buffer.subarray(0, end);
      this.buffer = this.buffer.subarray(end + 1);
      if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
      if (line.toString('utf8').trim() !== '') return line;
    }
  }

  #nextLSP() {
    if (this.expected === null) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const headers = this.buffer.subarray(0, end).toString('ascii').split('\r\n');
      this.buffer = this.buffer.subarray(end + 4);
      for (const header of headers) {
        const colon = header.indexOf(':');
        if (colon > 0 && header.slice(0, colon).trim().toLowerCase() === 'content-length') {
          this.expected = Number.parseInt(header.slice(colon + 1).trim(), 10);
        }
      }
      if (!Number.isInteger(this.expected) || this.expected < 0) {
        this.expected = null;
        throw new Error(`a header block without a valid Content-Length: ${JSON.stringify(headers)}`);
      }
    }
    if (this.buffer.length < this.expected) return null;
    const body = this.buffer.subarray(0, this.expected);
    this.buffer = this.buffer.subarray(this.expected);
    this.expected = null;
    return body;
  }
}
