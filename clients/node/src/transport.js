// The transport, the first of the client's three layers (as vscode-jsonrpc splits its own):
// framed messages over a pair of streams. It knows framing and flow control, nothing of
// JSON-RPC's ids or of Wharf. connection.js matches requests to answers over it; client.js is
// the API.

import { FrameDecoder, encode } from './framing.js';

/**
 * @typedef {object} TransportHooks
 * @property {(message: unknown) => void} message Each message read (a JSON value; a batch is one array).
 * @property {(message: object) => void} sent Each message as it is handed to the stream.
 * @property {(reason: string) => void} unreadable The peer sent bytes that are not a frame of JSON.
 */

/** Writes messages in order and reads them as they come. */
export class MessageTransport {
  /** @type {import('node:stream').Writable} */
  #writable;
  /** @type {import('./framing.js').Framing} */
  #framing;
  /** @type {FrameDecoder} */
  #decoder;
  /** @type {TransportHooks} */
  #hooks;
  /**
   * Messages waiting for the stream to drain, in order. A stream whose write() returned false
   * still takes whatever it is given, copying it into memory without limit: a server that
   * reads nothing (wedged, stopped) would have a client sending large requests buffer all of
   * them. So once write() says wait, what follows waits here, as given, and is encoded and
   * written on 'drain': the stream holds at most its highWaterMark and one message more.
   * @type {object[]}
   */
  #outbox = [];
  #waitingForDrain = false;
  #endWhenWritten = false;

  /**
   * @param {import('node:stream').Readable} readable
   * @param {import('node:stream').Writable} writable
   * @param {import('./framing.js').Framing} framing
   * @param {TransportHooks} hooks
   */
  constructor(readable, writable, framing, hooks) {
    this.#writable = writable;
    this.#framing = framing;
    this.#decoder = new FrameDecoder(framing);
    this.#hooks = hooks;
    readable.on('data', (chunk) => this.#receive(chunk));
    readable.on('error', () => {});
    writable.on('error', () => {});
  }

  /**
   * Sends `message` after everything sent before it: now if the stream has room, else once it drains.
   * @param {object} message
   */
  send(message) {
    this.#outbox.push(message);
    if (!this.#waitingForDrain) this.#flush();
  }

  /**
   * Takes out a message still waiting for the stream (never written): true if one matched.
   * @param {(message: any) => boolean} matches
   */
  unsend(matches) {
    const index = this.#outbox.findIndex(matches);
    if (index < 0) return false;
    this.#outbox.splice(index, 1);
    return true;
  }

  /** Ends the output once what was sent before is written (end() now would drop what waits). */
  end() {
    if (this.#outbox.length === 0) this.#writable.end();
    else this.#endWhenWritten = true;
  }

  /** Drops what waits: nothing more can be written. */
  discard() {
    this.#outbox.length = 0;
  }

  #flush() {
    this.#waitingForDrain = false;
    while (this.#outbox.length > 0) {
      const message = this.#outbox.shift();
      const room = this.#writable.write(encode(message, this.#framing));
      if (!room) {
        this.#waitingForDrain = true;
        this.#writable.once('drain', () => this.#flush());
      }
      // Heard once it is handed to the stream, not as it is queued: a request that times out
      // waiting is taken out unsent, and must not show as sent in a transcript. After the
      // write, so that a listener that sends goes after this message.
      this.#hooks.sent(message);
      if (this.#waitingForDrain) return;
    }
    if (this.#endWhenWritten) {
      this.#endWhenWritten = false;
      this.#writable.end();
    }
  }

  /** @param {Buffer} chunk */
  #receive(chunk) {
    let bodies;
    try {
      bodies = this.#decoder.push(chunk);
    } catch (error) {
      this.#hooks.unreadable(`the server sent something unreadable: ${error.message}`);
      return;
    }
    for (const body of bodies) {
      let message;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch (error) {
        this.#hooks.unreadable(`the server sent invalid JSON: ${error.message}`);
        return;
      }
      this.#hooks.message(message);
    }
  }
}
