// Message framing: LSP headers (`Content-Length: N\r\n\r\n` + body) or newline-delimited JSON.
// Kept apart from the client so that raw-protocol tools (the conformance runner) can use it.

/** @typedef {'lsp' | 'ndjson'} Framing */

export const LSP = /** @type {const} */ ('lsp');
export const NDJSON = /** @type {const} */ ('ndjson');

/**
 * One frame around `body` (a Buffer or string of JSON text).
 * @param {Buffer | string} body
 * @param {Framing} [framing]
 */
export function encodeBody(body, framing = LSP) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (framing === LSP) return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
  if (framing === NDJSON) {
    if (bytes.includes(0x0a)) throw new Error('an NDJSON body cannot contain a newline');
    return Buffer.concat([bytes, Buffer.from('\n')]);
  }
  throw new Error(`unknown framing ${framing}`);
}

/**
 * `message` as compact JSON text in one frame.
 * @param {unknown} message
 * @param {Framing} [framing]
 */
export function encode(message, framing = LSP) {
  return encodeBody(JSON.stringify(message), framing);
}

/**
 * Turns chunks of bytes into whole frame bodies. `push(chunk)` returns the bodies completed.
 * Chunks are kept as they come and joined once a frame is whole (or a header or line end may be
 * in them), so a body of many chunks costs its length to gather, not its length times the
 * number of chunks.
 */
export class FrameDecoder {
  // Bytes received after `buffer` and not looked at yet: chunks, and their total length.
  #chunks = [];
  #held = 0;
  // NDJSON: whether a line end may have arrived since the buffer was last searched.
  #lineEnd = false;

  /** @param {Framing} [framing] */
  constructor(framing = LSP) {
    if (framing !== LSP && framing !== NDJSON) throw new Error(`unknown framing ${framing}`);
    /** @type {Framing} */
    this.framing = framing;
    this.buffer = Buffer.alloc(0);
    /** @type {any} The body length the current header announced; null between frames. */
    this.expected = null;
  }

  push(chunk) {
    if (chunk.length) {
      this.#chunks.push(chunk);
      this.#held += chunk.length;
      if (this.framing === NDJSON && chunk.includes(0x0a)) this.#lineEnd = true;
    }
    const bodies = [];
    for (;;) {
      const body = this.framing === LSP ? this.#nextLSP() : this.#nextLine();
      if (body === null) return bodies;
      bodies.push(body);
    }
  }

  /** True when input stopped inside a frame. */
  get partial() {
    this.#gather();
    return this.expected !== null || (this.framing === LSP ? this.buffer.length > 0 : this.buffer.toString().trim() !== '');
  }

  /** Joins the chunks held onto the buffer. */
  #gather() {
    if (!this.#chunks.length) return;
    this.buffer = Buffer.concat(this.buffer.length ? [this.buffer, ...this.#chunks] : this.#chunks);
    this.#chunks = [];
    this.#held = 0;
  }

  #nextLine() {
    for (;;) {
      if (!this.#lineEnd) return null;
      this.#gather();
      const end = this.buffer.indexOf(0x0a);
      if (end < 0) {
        this.#lineEnd = false;
        return null;
      }
      let line = this.buffer.subarray(0, end);
      this.buffer = this.buffer.subarray(end + 1);
      if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
      if (line.toString('utf8').trim() !== '') return line;
    }
  }

  #nextLSP() {
    if (this.expected === null) {
      this.#gather();
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
    if (this.buffer.length + this.#held < this.expected) return null;
    this.#gather();
    const body = this.buffer.subarray(0, this.expected);
    this.buffer = this.buffer.subarray(this.expected);
    this.expected = null;
    return body;
  }
}
