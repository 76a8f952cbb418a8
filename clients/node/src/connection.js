// The protocol core, the second of the client's three layers: JSON-RPC over a transport.
// Requests get ids and wait for their answers (within a time limit), notifications go out,
// what the server sends is handed on in order, and when the connection ends every request
// still waiting fails. It knows nothing of Wharf's methods: client.js is the API over it.

import { ConnectionLost, RequestError, WharfTimeout } from './errors.js';

// setTimeout's longest delay (about 24.8 days); a longer one would fire at once.
const LONGEST_DELAY = 2 ** 31 - 1;

/**
 * Calls `expire` after `ms` milliseconds without keeping the process alive for it.
 * @param {number} ms
 * @param {() => void} expire
 */
export function startTimer(ms, expire) {
  const timer = setTimeout(expire, Math.min(ms, LONGEST_DELAY));
  timer.unref();
  return timer;
}

/**
 * @typedef {object} ConnectionHooks
 * @property {(direction: 'send' | 'receive', message: unknown) => void} traffic Every message sent or received.
 * @property {(method: string, params: unknown) => void} notification A notification from the server.
 * @property {(message: {id: unknown, method: string, params?: unknown}) => void} request A request from the server: answer it with `respond`.
 * @property {(id: number, method: string) => void} expired A request of ours that the server saw got no answer in time.
 * @property {(message: any) => void} lateAnswer An answer to no request still waiting (one that expired, say).
 * @property {(reason: string) => void} closed The connection has ended; every request waiting has failed.
 */

/**
 * @typedef {object} Waiting
 * @property {string} method
 * @property {(result: any) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {((result: any) => void) | undefined} onResult
 * @property {ReturnType<typeof setTimeout> | null} timer
 */

/** One JSON-RPC peer: our requests and their answers, and what the server sends. */
export class RpcConnection {
  /** @type {import('./transport.js').MessageTransport} */
  #transport;
  /** @type {ConnectionHooks} */
  #hooks;
  #nextId = 1;
  /** @type {Map<number, Waiting>} */
  #pending = new Map();
  /** @type {string | null} */
  #closed = null;

  /**
   * @param {(hooks: import('./transport.js').TransportHooks) => import('./transport.js').MessageTransport} open
   *   makes the transport, given what it reports to
   * @param {ConnectionHooks} hooks
   */
  constructor(open, hooks) {
    this.#hooks = hooks;
    this.#transport = open({
      message: (message) => this.#receive(message),
      sent: (message) => hooks.traffic('send', message),
      unreadable: (reason) => this.finish(reason),
    });
  }

  /** Why the connection ended, once it has (else null). */
  get closedReason() {
    return this.#closed;
  }

  /**
   * Sends a request; resolves with its result, rejects with RequestError, ConnectionLost or
   * WharfTimeout (after `timeoutMs`; null, never). `onResult` runs with the result before the
   * promise settles and before the next message is handled.
   * @param {string} method
   * @param {unknown} [params]
   * @param {(result: any) => void} [onResult]
   * @param {number | null} [timeoutMs]
   * @returns {Promise<any>}
   */
  request(method, params, onResult, timeoutMs = null) {
    if (this.#closed) return Promise.reject(new ConnectionLost(`${method} cannot be sent: ${this.#closed}`));
    const id = this.#nextId++;
    /** @type {{jsonrpc: string, id: number, method: string, params?: unknown}} */
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    return new Promise((resolve, reject) => {
      const timer = timeoutMs === null ? null : startTimer(timeoutMs, () => this.#expire(id, timeoutMs));
      this.#pending.set(id, { method, resolve, reject, onResult, timer });
      this.#transport.send(message);
    });
  }

  /**
   * @param {string} method
   * @param {unknown} [params]
   */
  notify(method, params) {
    if (this.#closed) throw new ConnectionLost(`${method} cannot be sent: ${this.#closed}`);
    /** @type {{jsonrpc: string, method: string, params?: unknown}} */
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.#transport.send(message);
  }

  /**
   * Answers a request of the server's (nothing, once the connection has ended).
   * @param {object} response
   */
  respond(response) {
    if (!this.#closed) this.#transport.send(response);
  }

  /** Ends our output once what was sent before it is written. */
  endOutput() {
    this.#transport.end();
  }

  /**
   * Ends the connection: every request still waiting fails with ConnectionLost, nothing more
   * is written, and the `closed` hook hears why. Later calls do nothing.
   * @param {string} reason
   */
  finish(reason) {
    if (this.#closed) return;
    this.#closed = reason;
    for (const { method, reject, timer } of this.#pending.values()) {
      clearTimeout(timer ?? undefined);
      reject(new ConnectionLost(`${method} got no answer: ${reason}`));
    }
    this.#pending.clear();
    this.#transport.discard();
    this.#hooks.closed(reason);
  }

  /**
   * A request got no answer in time: forgotten (a late answer is ignored), and the server told
   * to drop it; or, if it is still waiting to be written, taken out unsent (the server never saw it).
   * @param {number} id
   * @param {number} ms
   */
  #expire(id, ms) {
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#pending.delete(id);
    if (!this.#transport.unsend((message) => message.method !== undefined && message.id === id)) {
      this.#hooks.expired(id, entry.method);
      if (!this.#closed) this.notify('$/cancelRequest', { id });
    }
    entry.reject(new WharfTimeout(`${entry.method} got no answer within ${ms / 1000} s`));
  }

  /** @param {unknown} message */
  #receive(message) {
    this.#hooks.traffic('receive', message);
    for (const item of Array.isArray(message) ? message : [message]) this.#handle(item);
  }

  /** @param {any} message */
  #handle(message) {
    if (message === null || typeof message !== 'object') return;
    if (typeof message.method === 'string') {
      if ('id' in message) this.#hooks.request(message);
      else this.#hooks.notification(message.method, message.params);
      return;
    }
    const entry = this.#pending.get(message.id);
    if (!entry) {
      this.#hooks.lateAnswer(message);
      return;
    }
    this.#pending.delete(message.id);
    clearTimeout(entry.timer ?? undefined);
    if (message.error) {
      entry.reject(new RequestError(entry.method, message.error.code, message.error.message, message.error.data));
      return;
    }
    try {
      // Before the promise settles and before the next message is handled: whatever the hook
      // sets up (a dialog's registration) is in place for what follows.
      entry.onResult?.(message.result);
      entry.resolve(message.result);
    } catch (error) {
      entry.reject(error);
    }
  }
}
