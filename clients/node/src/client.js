// The Node client: one JSON-RPC connection to a wharf server, dialogs as objects, balanced access.
//
// Everything is event driven: bytes arrive on the child's stdout, whole messages are handled in
// order, responses settle promises, notifications are routed to their dialog. Nothing polls.
//
// The API, the third of the client's layers (as vscode-jsonrpc splits its own): transport.js
// frames messages over the streams, connection.js is JSON-RPC (ids, answers, time limits), and
// this file is Wharf: spawning it, dialogs, presentations, access.

import { spawn as spawnProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

import { RpcConnection, startTimer } from './connection.js';
import { ConnectionLost, DialogCancelled, DialogFailed, RequestError, WharfError, WharfTimeout } from './errors.js';
import { LSP } from './framing.js';
import { MessageTransport } from './transport.js';
import { urlToPath } from './paths.js';

/** Where an installed wharf is looked for after `$WHARF` and `PATH`. */
export const INSTALLED_LOCATIONS = Object.freeze(['/usr/local/bin/wharf', '/usr/bin/wharf']);

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The wharf binary: `path` if given, else `$WHARF`, else `wharf` on `PATH`, else an installed
 * `/usr/local/bin/wharf` or `/usr/bin/wharf` (`locations`).
 */
export function findWharf(path, { locations = INSTALLED_LOCATIONS } = {}) {
  const candidate = path ?? process.env.WHARF;
  if (candidate) return candidate;
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (folder && executable(join(folder, 'wharf'))) return join(folder, 'wharf');
  }
  for (const location of locations) if (executable(location)) return location;
  throw new WharfError(`cannot find wharf: pass its path ({wharf}), set $WHARF, put it on PATH, or install it as ${locations.join(' or ')}`);
}

/** What `dialog/fail` says when a presenter handler failed. */
export function failureMessage(error) {
  if (error instanceof Error) return error.message ? `${error.name}: ${error.message}` : error.name;
  return String(error);
}

export const NO_HANDLER_MESSAGE = 'this client said presentsDialogs but registered no onPresent handler, so nothing can draw the dialog';

/**
 * Calls `emitter`'s listeners of `event` one by one, as `emit` does, except that one that throws
 * is the app's fault and not the connection's: it is reported as a WharfWarning and the others,
 * and the client, carry on. A throwing listener had broken out of the reading of the server's
 * output, so the messages read with it were lost, a dialog's ending among them.
 */
function tell(emitter, event, ...args) {
  for (const listener of emitter.rawListeners(event)) {
    try {
      Reflect.apply(listener, emitter, args);
    } catch (error) {
      process.emitWarning(`a '${event}' listener threw, and was ignored: ${error?.stack ?? error}`, 'WharfWarning');
    }
  }
}

const FINAL = new Set(['completed', 'cancelled', 'disconnected']);

/**
 * How many events before its final one a dialog keeps for `events` and `for await` (and the
 * client for a dialog not registered yet): older ones are dropped, so an app that never reads
 * them does not keep a long export's `progress` for ever. The final event is always kept, and
 * `event` listeners hear every event as it comes.
 */
export const EVENTS_KEPT = 64;

/** Appends `event`, dropping the oldest if more than EVENTS_KEPT come before a final one; returns how many were dropped (0 or 1). */
function keep(events, event) {
  events.push(event);
  if (event.isFinal || events.length <= EVENTS_KEPT) return 0;
  events.shift();
  return 1;
}

// How many ended dialogs' ids a client remembers, so that a stray notification naming one is
// dropped rather than kept as an early event for a dialog that will never register. Ids are not
// reused and wharf sends nothing after a dialog's final event: a guard, and bounded.
const ENDED_IDS = 1024;

/**
 * How long a request waits for its answer by default before rejecting with WharfTimeout: a
 * guard against a wedged server. Dialogs wait on humans: `dialog.result({timeoutMs})` takes its own.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

// How long a server whose output has ended is given to exit before what waits on it fails
// without its exit status.
const EXIT_GRACE_MS = 1000;

/** A wait's limit in milliseconds: a positive number, or 0, Infinity or undefined for none (null). */
function limit(ms, what) {
  if (ms === undefined || ms === 0 || ms === Infinity) return null;
  if (typeof ms !== 'number' || !(ms > 0)) throw new RangeError(`${what} must be a positive number of milliseconds, or 0 or Infinity for no limit; got ${ms}`);
  return ms;
}

/** Whether `promise` settles within `ms` milliseconds (its outcome is not needed, nor reported). */
async function settlesWithin(promise, ms) {
  let timer;
  const expired = new Promise((resolve) => { timer = startTimer(ms, () => resolve(false)); });
  const settled = promise.then(() => true, () => true);
  try {
    return await Promise.race([settled, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A presented importer or exporter. `await dialog.result()` gives the URLs (rejects with
 * DialogCancelled, DialogFailed or ConnectionLost, and with WharfTimeout if a `timeoutMs` given
 * to it runs out first); `for await (const event of dialog)` streams every event until the final
 * one; it is also an EventEmitter of `event`.
 */
export class Dialog extends EventEmitter {
  #client;
  #events = [];
  /** How many events were dropped from the front of #events (see EVENTS_KEPT). */
  #skipped = 0;
  #snapshots;
  #final;
  #settle;

  constructor(client, id, kind, snapshots = []) {
    super();
    this.#client = client;
    this.id = id;
    this.kind = kind;
    this.#snapshots = snapshots;
    this.#final = new Promise((resolve) => { this.#settle = resolve; });
  }

  /** Fed by the client in the server's order; nothing after the final event. */
  _push(event) {
    if (this.done) return;
    this.#skipped += keep(this.#events, event);
    if (event.isFinal) {
      // Nothing asks for a snapshot once the dialog has ended: let go of the functions (and all
      // they capture), even while the app keeps this Dialog.
      this.#snapshots = [];
      this.#settle(event);
    }
    tell(this, 'event', event);
  }

  _snapshot(index) {
    // An index, not any key: `"length"` or `"0"` must not find something.
    return Number.isInteger(index) ? this.#snapshots[index] : undefined;
  }

  get done() {
    const last = this.#events.at(-1);
    return last !== undefined && last.isFinal;
  }

  /** The events so far: the last EVENTS_KEPT before the final one, and the final one. */
  get events() {
    return [...this.#events];
  }

  /**
   * The final event, when it comes. Dialogs wait on humans, so there is no limit unless
   * `timeoutMs` is given (0 or Infinity: none); if it runs out first, rejects with WharfTimeout.
   * Running out does not end the dialog: it stays open, and `cancel()` ends it.
   * @param {{timeoutMs?: number}} options
   */
  finalEvent({ timeoutMs } = {}) {
    const ms = limit(timeoutMs, 'timeoutMs');
    if (ms === null || this.done) return this.#final;
    return new Promise((resolve, reject) => {
      const timer = startTimer(ms, () => reject(new WharfTimeout(`dialog ${this.id} has not ended within ${ms / 1000} s`)));
      this.#final.then((event) => {
        clearTimeout(timer);
        resolve(event);
      });
    });
  }

  /**
   * The URLs the dialog ended with; `timeoutMs` as for finalEvent (the dialog stays open if it runs out).
   * @param {{timeoutMs?: number}} options
   */
  async result({ timeoutMs } = {}) {
    return outcomeURLs(this.id, await this.finalEvent({ timeoutMs }));
  }

  /** For a completed exporter: the content type each document was written as. */
  get contentTypes() {
    const last = this.#events.at(-1);
    return last?.kind === 'completed' ? last.params.contentTypes : undefined;
  }

  /** Ends the dialog from the app side (reason `client`); false if it had already ended. */
  async cancel() {
    return (await this.#client.request('cancel', { dialogId: this.id })).cancelled;
  }

  /** Every event from the first; one that fell more than EVENTS_KEPT behind resumes at the oldest kept. */
  async *[Symbol.asyncIterator]() {
    let index = 0;  // counting every event received, dropped ones too
    for (;;) {
      while (index < this.#skipped + this.#events.length) {
        index = Math.max(index, this.#skipped);
        const event = this.#events[index++ - this.#skipped];
        yield event;
        if (event.isFinal) return;
      }
      await new Promise((resolve) => this.once('event', resolve));
    }
  }
}

function makeEvent(kind, params) {
  return Object.freeze({ kind, params, isFinal: FINAL.has(kind) });
}

function outcomeURLs(dialogId, event) {
  if (event.kind === 'completed') {
    const error = event.params.error;
    if (error) throw new DialogFailed(dialogId, error.code, error.message, error.url);
    return [...event.params.urls];
  }
  if (event.kind === 'cancelled') throw new DialogCancelled(dialogId, event.params.reason);
  throw new ConnectionLost(`dialog ${dialogId} never ended: ${event.params.message}`);
}

/**
 * The frontend role: one dialog the server asks this client to draw (`presenter/show`).
 * Answer with `choose` (importer), `save` (exporter), `move` (mover) or `dismiss`. Emits `hide` when the app
 * side ended it (or the server went away); `hidden` is then true.
 */
export class Presentation extends EventEmitter {
  #client;

  constructor(client, params) {
    super();
    this.#client = client;
    this.params = params;
    this.dialogId = params.dialogId;
    this.kind = params.kind;
    this.title = params.title ?? null;
    this.message = params.message ?? null;
    this.confirmationLabel = params.confirmationLabel ?? null;
    this.allowedContentTypes = params.allowedContentTypes ?? [];
    this.allowsMultipleSelection = params.allowsMultipleSelection ?? false;
    this.filters = params.filters;
    this.directory = params.directory;
    this.browserOptions = params.browserOptions ?? [];
    this.filename = params.filename ?? null;
    this.filenames = params.filenames ?? [];
    this.contentTypes = params.contentTypes ?? [];
    this.filenameLabel = params.filenameLabel ?? null;
    this.documentCount = params.documentCount ?? 0;
    this.contentTypeChoices = params.contentTypeChoices ?? [];
    this.moverUrls = params.mover?.urls ?? [];
    this.hidden = false;
  }

  _hide() {
    if (this.hidden) return;
    this.hidden = true;
    tell(this, 'hide');
  }

  /**
   * One page of `directory` (default: where the dialog opened); `showHidden` lists hidden files or not (default: as the dialog's includeHiddenFiles).
   * @param {{directory?: string, cursor?: string, limit?: number, showHidden?: boolean}} options
   */
  list({ directory, cursor, limit, showHidden } = {}) {
    return this.#client.request('dialog/list', withDefined({ dialogId: this.dialogId, directory, cursor, limit, showHidden }));
  }

  /**
   * Every entry of `directory`, page after page.
   * @param {{directory?: string, pageSize?: number, showHidden?: boolean}} options
   */
  async *entries({ directory, pageSize, showHidden } = {}) {
    let cursor;
    do {
      const page = await this.list(cursor ? { directory, cursor, limit: pageSize } : { directory, limit: pageSize, showHidden });
      yield* page.entries;
      cursor = page.nextCursor;
    } while (cursor);
  }

  /** The human picked `urls`; rejects with RequestError `choiceRejected` and the dialog stays open if not allowed. */
  async choose(urls) {
    await this.#client.request('dialog/choose', { dialogId: this.dialogId, urls: [...urls] });
  }

  /**
   * The human chose where to save; `overwrite` confirms replacing a file.
   * @param {string} url
   * @param {{contentType?: string, overwrite?: boolean}} options
   */
  async save(url, { contentType, overwrite } = {}) {
    await this.#client.request('dialog/choose', withDefined({ dialogId: this.dialogId, url, contentType, overwrite }));
  }

  /**
   * A mover: the human chose `folder`. Names taken there without `conflictResolution` reject
   * with RequestError `nameConflict` and the dialog stays open: ask, then move again with
   * `'replace'` or `'keepBoth'`.
   * @param {string} folder
   * @param {{conflictResolution?: 'replace' | 'keepBoth'}} options
   */
  async move(folder, { conflictResolution } = {}) {
    if (conflictResolution !== undefined && conflictResolution !== 'replace' && conflictResolution !== 'keepBoth') {
      throw new TypeError(`conflictResolution is 'replace' or 'keepBoth', not ${JSON.stringify(conflictResolution)}`);
    }
    await this.#client.request('dialog/choose', withDefined({ dialogId: this.dialogId, url: folder, conflictResolution }));
  }

  /** The human closed the dialog without choosing (reason `user`). */
  async dismiss() {
    await this.#client.request('dialog/dismiss', { dialogId: this.dialogId });
  }

  /** The presenter cannot go on (its own code failed): the dialog ends with a `presenterFailed` error carrying `message`. */
  async fail(message) {
    await this.#client.request('dialog/fail', { dialogId: this.dialogId, message });
  }
}

function withDefined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

/** The requests that present a dialog: one answered after its caller gave up left a dialog open. */
const PRESENT_METHODS = new Set(['presentImporter', 'presentExporter', 'presentMover']);

const OPTION_NAMES = ['defaultDirectory', 'title', 'message', 'confirmationLabel', 'browserOptions', 'urlEnabled',
  'importsUnresolvedAliases', 'customizationId', 'timeoutMs', 'filenameLabel', 'filters', 'currentFilter', 'choices'];

/**
 * The `options` of a present request. A key that is none of OPTION_NAMES throws TypeError, as an
 * unknown keyword does in the Python client: dropping it, as this did, presented a dialog that
 * silently lacked what a misspelt option (`defaultDir`) meant to say.
 */
function dialogOptions(options, method, others) {
  const unknown = Object.keys(options).filter((name) => !OPTION_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(`${method} has no option ${unknown.join(', ')}: its options are ${[...others, ...OPTION_NAMES].join(', ')}`);
  }
  return withDefined(Object.fromEntries(OPTION_NAMES.map((name) => [name, options[name]])));
}

/** `string` → `{text}`, Buffer/Uint8Array → `{base64}`, `{path}` as is. */
export function contentsJSON(value) {
  if (typeof value === 'string') return { text: value };
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') };
  if (value && typeof value === 'object' && typeof value.path === 'string' && Object.keys(value).length === 1) return { path: value.path };
  throw new TypeError('document contents must be a string, a Buffer or {path}');
}

/**
 * A session with one wharf server. Make one with `WharfClient.spawn()` (starts and initializes
 * wharf) or `new WharfClient(readable, writable)`. Every request waits at most
 * `requestTimeoutMs` (default DEFAULT_REQUEST_TIMEOUT_MS; 0 or Infinity: no limit) for its
 * answer: then it rejects with WharfTimeout, the server is told with `$/cancelRequest`, and a
 * late answer is ignored. Emits `notification` (method, params), `traffic` (direction, message)
 * and `close` (ConnectionLost).
 */
export class WharfClient extends EventEmitter {
  /** JSON-RPC over the streams (connection.js, over transport.js). */
  #connection;
  /**
   * The dialogs that have not ended. One is dropped once its final event is delivered: an
   * editor opens dialogs for as long as it runs, and each would otherwise be kept, with its
   * events and snapshot functions, for ever. Whoever holds the Dialog still reads its outcome.
   */
  #dialogs = new Map();
  /** The ids of the last ENDED_IDS dialogs dropped from #dialogs, oldest first. */
  #ended = new Set();
  #early = new Map();
  /** Present requests that timed out, by id: their answer, if it still comes, names a dialog nobody waits for. */
  #abandoned = new Map();
  #presentations = new Map();
  /** @type {((presentation: Presentation) => unknown) | null} */
  #presentHandler = null;
  #stderr = '';
  #requestTimeoutMs;

  /**
   * @param {import('node:stream').Readable} readable
   * @param {import('node:stream').Writable} writable
   * @param {{framing?: import('./framing.js').Framing, child?: import('node:child_process').ChildProcess | null, requestTimeoutMs?: number}} options
   */
  constructor(readable, writable, { framing = LSP, child = null, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS } = {}) {
    super();
    this.requestTimeoutMs = requestTimeoutMs;
    this.child = child;
    this.initializeResult = null;
    this.#connection = new RpcConnection((hooks) => new MessageTransport(readable, writable, framing, hooks), {
      traffic: (direction, message) => tell(this, 'traffic', direction, message),
      notification: (method, params) => this.#route(method, params),
      request: (message) => this.#serve(message),
      expired: (id, method) => {
        if (PRESENT_METHODS.has(method)) this.#abandoned.set(id, method);
      },
      lateAnswer: (message) => this.#answeredLate(message),
      closed: (reason) => this.#connectionEnded(reason),
    });
    if (child) {
      // Decoded as one stream: a character whose bytes come in two chunks is kept whole (each
      // chunk decoded on its own made it U+FFFDs).
      const stderrText = new StringDecoder('utf8');
      const keep = (text) => { this.#stderr = (this.#stderr + text).slice(-2000); };
      child.stderr?.on('data', (chunk) => keep(typeof chunk === 'string' ? chunk : stderrText.write(chunk)));
      child.stderr?.on('end', () => keep(stderrText.end()));
      // The whole story is known once the process has exited and its output has ended. Output
      // ends a moment before the process does, so its status is waited for, but only for a
      // moment: a server that closed its output and lives on will never answer, and whatever
      // waits on it fails now rather than with its own timeout (a dialog, never).
      let outputEnded = false;
      let exited = false;
      let grace = null;
      const finish = () => {
        if (!outputEnded) return;
        clearTimeout(grace);
        this.#connection.finish(this.#describeExit());
      };
      readable.on('end', () => {
        outputEnded = true;
        if (exited) finish();
        else grace = startTimer(EXIT_GRACE_MS, finish);
      });
      child.on('exit', () => { exited = true; finish(); });
    } else {
      readable.on('end', () => this.#connection.finish('the server closed the connection'));
    }
  }

  /**
   * Starts wharf (see findWharf) with `args` and, unless `initialize` is false, initializes the
   * session as app identity `app`.
   * @param {{wharf?: string, args?: string[], app?: string, presentsDialogs?: boolean, prefersDesktopDialogs?: boolean, onPresent?: (presentation: Presentation) => unknown, framing?: import('./framing.js').Framing, env?: Record<string, string>, initialize?: boolean, requestTimeoutMs?: number}} options
   */
  static async spawn({ wharf, args = [], app = 'node', presentsDialogs = false, prefersDesktopDialogs = false, onPresent, framing = LSP, env, initialize = true, requestTimeoutMs } = {}) {
    const command = findWharf(wharf);
    const child = spawnProcess(command, framing === LSP ? args : [...args, '--framing', framing], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: env ? { ...process.env, ...env } : process.env,
    });
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new WharfError(`cannot start ${command}: ${error.message}`)));
    });
    const client = new WharfClient(child.stdout, child.stdin, { framing, child, requestTimeoutMs });
    if (onPresent) client.onPresent(onPresent);
    if (initialize) {
      try {
        await client.initialize({ app, presentsDialogs, prefersDesktopDialogs });
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
    }
    return client;
  }

  // Requests and notifications (connection.js)

  /** How long each request waits for its answer, in milliseconds (0 or Infinity: no limit); applies to requests sent after it is set. */
  get requestTimeoutMs() {
    return this.#requestTimeoutMs;
  }

  set requestTimeoutMs(ms) {
    limit(ms, 'requestTimeoutMs');
    this.#requestTimeoutMs = ms ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** Sends a request; resolves with its result, rejects with RequestError, ConnectionLost or WharfTimeout. */
  request(method, params, onResult) {
    if (this.#connection.closedReason) return this.#connection.request(method, params, onResult);
    return this.#connection.request(method, params, onResult, limit(this.#requestTimeoutMs, 'requestTimeoutMs'));
  }

  notify(method, params) {
    this.#connection.notify(method, params);
  }

  /**
   * The answer to a request that timed out. A present answered with its dialog (the answer
   * crossed our `$/cancelRequest`) left a dialog open that nobody waits for: it is cancelled,
   * so it does not stay in front of the human, and its events are dropped.
   */
  #answeredLate(message) {
    if (!this.#abandoned.delete(message.id)) return;
    const dialogId = message.result?.dialogId;
    if (typeof dialogId !== 'string' || this.#connection.closedReason) return;
    this.request('cancel', { dialogId }).catch(() => {}).finally(() => this.#early.delete(dialogId));
  }

  // Routing what the server sends, in order

  #route(method, params) {
    tell(this, 'notification', method, params);
    if (!params || typeof params !== 'object') return;
    if (method.startsWith('dialog/')) {
      this.#deliver(params.dialogId, makeEvent(method.slice('dialog/'.length), params));
    } else if (method === 'presenter/show') {
      const presentation = new Presentation(this, params);
      this.#presentations.set(presentation.dialogId, presentation);
      this.#draw(presentation);
    } else if (method === 'presenter/hide') {
      const presentation = this.#presentations.get(params.dialogId);
      this.#presentations.delete(params.dialogId);
      presentation?._hide();
    }
  }

  /**
   * Runs the onPresent handler. If it throws or rejects, or there is none, the dialog ends at
   * once with presenterFailed carrying the message (`dialog/fail`), and `error` listeners hear
   * of the failure; nothing is left open.
   */
  async #draw(presentation) {
    const handler = this.#presentHandler;
    let message = NO_HANDLER_MESSAGE;
    if (handler) {
      try {
        await handler(presentation);
        return;
      } catch (error) {
        message = failureMessage(error);
        // Through tell(), as every listener is: an `error` listener that threw from emit()
        // broke out of here before the dialog was failed, and it stayed open for ever.
        if (this.listenerCount('error') > 0) tell(this, 'error', error);
      }
    }
    try {
      await presentation.fail(message);
    } catch {
      // the dialog ended meanwhile (dialogEnded), or the server went away: nothing to fail
    }
  }

  #deliver(dialogId, event) {
    const dialog = this.#dialogs.get(dialogId);
    if (!dialog) {
      if (this.#ended.has(dialogId)) return;  // after its end: nothing to keep it for
      // Said before the answer that names the dialog; handed over when it registers.
      if (!this.#early.has(dialogId)) this.#early.set(dialogId, []);
      keep(this.#early.get(dialogId), event);
      return;
    }
    dialog._push(event);
    if (event.isFinal) this.#forget(dialogId);
  }

  /** A dialog has ended and its waiters have been told: the client lets go of it. */
  #forget(dialogId) {
    this.#dialogs.delete(dialogId);
    this.#presentations.delete(dialogId);
    this.#ended.add(dialogId);
    if (this.#ended.size > ENDED_IDS) this.#ended.delete(this.#ended.values().next().value);
  }

  async #serve(message) {
    const response = { jsonrpc: '2.0', id: message.id };
    try {
      if (message.method !== 'exporter/snapshot') {
        throw new RequestError(message.method, -32601, `this client does not handle ${message.method}`);
      }
      // A method this client serves, with params of the wrong shape: invalid params, as JSON-RPC
      // says, and a message that says so (destructuring an array or a string finds no member,
      // and the answer named "document undefined of undefined").
      const params = message.params;
      if (params === null || typeof params !== 'object' || Array.isArray(params)) {
        throw new RequestError(message.method, -32602, `${message.method} params must be an object (dialogId, documentIndex, contentType), not ${String(JSON.stringify(params)).slice(0, 100)}`);
      }
      const { dialogId, documentIndex, contentType } = params;
      const provider = this.#dialogs.get(dialogId)?._snapshot(documentIndex);
      if (!provider) throw new RequestError(message.method, -32602, `document ${documentIndex} of ${dialogId} has no snapshot function`);
      response.result = contentsJSON(await provider(contentType));
    } catch (error) {
      response.error = error instanceof RequestError
        ? { code: error.code, message: error.serverMessage }
        : { code: -32603, message: `${error?.name ?? 'Error'}: ${error?.message ?? error}` };
    }
    this.#connection.respond(response);
  }

  #describeExit() {
    const code = this.child?.exitCode;
    const signal = this.child?.signalCode;
    const what = code !== null && code !== undefined ? `wharf exited with status ${code}`
      : signal ? `wharf was killed by ${signal}` : 'wharf closed its output and has not exited';
    const tail = this.#stderr.trim();
    return tail ? `${what}; its last words: ${tail.slice(-500)}` : what;
  }

  /** The connection has ended (its requests have failed): every dialog ends `disconnected`. */
  #connectionEnded(reason) {
    const error = new ConnectionLost(reason);
    for (const dialog of this.#dialogs.values()) dialog._push(makeEvent('disconnected', { dialogId: dialog.id, message: reason }));
    // Nothing more will come: every dialog has ended, and early events would find none.
    this.#dialogs.clear();
    this.#early.clear();
    this.#abandoned.clear();
    for (const presentation of this.#presentations.values()) presentation._hide();
    this.#presentations.clear();
    tell(this, 'close', error);
  }

  /**
   * Which presenter this client's dialogs get (`initialize`'s `capabilities.presenter`):
   * 'portal', 'zenity', 'kdialog', 'frontend', 'script', 'connection' (over the daemon, its presenter
   * connection), or null (none, or a server too old to say).
   * @returns {import('../index.js').PresenterKind | null}
   */
  get presenter() {
    const value = this.initializeResult?.capabilities?.presenter;
    return typeof value === 'string' ? /** @type {import('../index.js').PresenterKind} */ (value) : null;
  }

  /** Why the connection ended, once it has (else null). */
  get closedReason() {
    return this.#connection.closedReason;
  }

  // Lifecycle

  /**
   * @param {{app?: string, presentsDialogs?: boolean, prefersDesktopDialogs?: boolean, trace?: string, version?: string}} options
   */
  async initialize({ app = 'node', presentsDialogs = false, prefersDesktopDialogs = false, trace, version } = {}) {
    const clientInfo = version ? { name: app, version } : { name: app };
    const capabilities = prefersDesktopDialogs ? { presentsDialogs, prefersDesktopDialogs: true } : { presentsDialogs };
    const params = { processId: process.pid, clientInfo, capabilities };
    if (trace) params.trace = trace;
    this.initializeResult = await this.request('initialize', params);
    this.notify('initialized', {});
    return this.initializeResult;
  }

  async ping() {
    await this.request('ping', {});
  }

  /**
   * Shuts down politely (`shutdown`, `exit`) if the server is still there, then waits for it:
   * the exit status of a spawned server. A server that has not answered and exited within
   * `timeoutMs` (10 s) is killed, and the result is null. Until it is called, the child and its
   * pipes keep Node running: they are not unref'd, or Node could exit with answers on the way.
   */
  async close({ timeoutMs = 10_000 } = {}) {
    // One deadline for the whole close: the shutdown answer and the exit each waiting the full
    // timeout made a wharf that does not answer (wedged, stopped) hold close() twice as long.
    const deadline = performance.now() + timeoutMs;
    const left = () => Math.max(0, deadline - performance.now());
    if (!this.closedReason) {
      const shutdown = this.request('shutdown');
      if (await settlesWithin(shutdown, left()) && !this.closedReason) {
        try {
          await shutdown;
          this.notify('exit');
        } catch {
          // already gone, or refused: ending its input is what is left
        }
      }
    }
    this.#connection.endOutput();
    if (!this.child) return null;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const child = this.child;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (!(await settlesWithin(exited, left()))) {
        this.child.kill('SIGKILL');
        await exited;
      }
    }
    return this.child.exitCode;
  }

  // Content types

  async describeTypes(identifiers) {
    return (await this.request('contentTypes/describe', { identifiers: [...identifiers] })).types;
  }

  async identify(paths, { sniff = true } = {}) {
    return (await this.request('contentTypes/identify', { paths: [...paths], sniff })).results;
  }

  async conforms(identifier, to) {
    return (await this.request('contentTypes/conforms', { identifier, to })).conforms;
  }

  async typeForExtension(filenameExtension, conformingTo) {
    return (await this.request('contentTypes/fromFilenameExtension', withDefined({ filenameExtension, conformingTo }))).identifier;
  }

  async typeForMIMEType(mimeType, conformingTo) {
    return (await this.request('contentTypes/fromMIMEType', withDefined({ mimeType, conformingTo }))).identifier;
  }

  async declareTypes(types) {
    return (await this.request('contentTypes/declare', { types: [...types] })).declared;
  }

  filters(identifiers) {
    return this.request('contentTypes/filters', { identifiers: [...identifiers] });
  }

  // Dialogs

  /**
   * Presents an importer; resolves with the Dialog once it is presented. `signal` (an
   * AbortSignal) cancels the dialog when aborted.
   * @param {Iterable<string>} allowedContentTypes
   * @param {{multiple?: boolean, presentationId?: string, signal?: AbortSignal, [option: string]: unknown}} options
   */
  presentImporter(allowedContentTypes, { multiple = false, presentationId, signal, ...options } = {}) {
    const params = withDefined({
      allowedContentTypes: [...allowedContentTypes], allowsMultipleSelection: multiple, presentationId,
    });
    const merged = dialogOptions(options, 'presentImporter', ['multiple', 'presentationId', 'signal']);
    if (Object.keys(merged).length) params.options = merged;
    return this.#present('presentImporter', params, 'importer', [], signal);
  }

  /**
   * Presents an exporter. A document is `{writableContentTypes, filename?, contents?}` where
   * contents is a string, a Buffer or `{path}`, or `{…, snapshot: async (contentType) => contents}`
   * for a lazy document produced once the human has chosen where to save.
   * @param {any} documents
   * @param {{contentType?: string, contentTypes?: string[], defaultFilename?: string, presentationId?: string, signal?: AbortSignal, [option: string]: unknown}} options
   */
  presentExporter(documents, { contentType, contentTypes, defaultFilename, presentationId, signal, ...options } = {}) {
    const merged = dialogOptions(options, 'presentExporter', ['contentType', 'contentTypes', 'defaultFilename', 'presentationId', 'signal']);
    const params = withDefined({
      documents: documents.map((document) => withDefined({
        filename: document.filename,
        writableContentTypes: [...document.writableContentTypes],
        contents: document.contents === undefined ? undefined : contentsJSON(document.contents),
      })),
      contentType, contentTypes, defaultFilename, presentationId,
    });
    if (Object.keys(merged).length) params.options = merged;
    return this.#present('presentExporter', params, 'exporter', documents.map((document) => document.snapshot), signal);
  }

  /**
   * Presents a mover (fileMover): the human chooses a folder and `urls`, each one this client
   * was given, are moved there; the dialog's result is their new URLs, in the order given.
   * @param {Iterable<string>} urls
   * @param {{presentationId?: string, signal?: AbortSignal, [option: string]: unknown}} options
   */
  presentMover(urls, { presentationId, signal, ...options } = {}) {
    const params = withDefined({ urls: [...urls], presentationId });
    const merged = dialogOptions(options, 'presentMover', ['presentationId', 'signal']);
    if (Object.keys(merged).length) params.options = merged;
    return this.#present('presentMover', params, 'mover', [], signal);
  }

  async #present(method, params, kind, snapshots, signal) {
    signal?.throwIfAborted();
    /** @type {Dialog} */
    let dialog = /** @type {any} */ (undefined);  // set by the answer, before the request resolves
    await this.request(method, params, (result) => {
      dialog = new Dialog(this, result.dialogId, kind, snapshots);
      this.#dialogs.set(dialog.id, dialog);
      const early = this.#early.get(dialog.id) ?? [];
      this.#early.delete(dialog.id);
      for (const event of early) this.#deliver(dialog.id, event);
    });
    if (signal) {
      const abort = () => { dialog.cancel().catch(() => {}); };
      if (signal.aborted) abort();
      else {
        signal.addEventListener('abort', abort, { once: true });
        dialog.finalEvent().then(() => signal?.removeEventListener('abort', abort));
      }
    }
    return dialog;
  }

  /**
   * Takes the frontend role: `handler(presentation)` runs for every dialog to draw (initialize
   * with `presentsDialogs: true`). A handler that throws or rejects ends its dialog with
   * presenterFailed and the error's message; so does a dialog shown with no handler.
   */
  onPresent(handler) {
    this.#presentHandler = handler;
  }

  // Access

  /**
   * @param {{url?: string, bookmark?: string}} target
   */
  resolveAccess({ url, bookmark } = {}) {
    if ((url === undefined) === (bookmark === undefined)) throw new TypeError('give exactly one of url and bookmark');
    return this.request('resolveAccess', url !== undefined ? { url } : { bookmark });
  }

  async releaseAccess(accessId) {
    await this.request('releaseAccess', { accessId });
  }

  /**
   * `await client.withAccess(url, async (path) => …)`: resolves access, runs `body` with the
   * local path and always releases it (try/finally), whatever `body` does. `target` is a URL
   * string or `{url}` / `{bookmark}`. The path is made from the lease's `url` (urlToPath: a
   * Buffer when the name is not UTF-8), not its `path`, which is for display and may then name
   * another file.
   *
   * A release that fails rejects (RequestError, WharfTimeout), unless `body` failed: then what
   * `body` threw is what rejects, the very same value, and the release failure is reported on
   * the client's `error` event (or, with no `error` listener, as a process warning).
   */
  async withAccess(target, body) {
    const lease = await this.resolveAccess(typeof target === 'string' ? { url: target } : target);
    let result;
    try {
      result = await body(urlToPath(lease.url), lease);
    } catch (error) {
      // The body's error is what the caller's code did: a release failing after it (wharf
      // wedged, the lease already gone) must not take its place, as it did from a finally.
      // Nor is the body's error wrapped (AggregateError) or given a `cause`: its type and its
      // own cause are what the caller's catch looks at. The release failure is reported aside.
      if (!this.closedReason) {
        try {
          await this.releaseAccess(lease.accessId);
        } catch (failure) {
          this.#reportReleaseFailure(lease.accessId, failure);
        }
      }
      throw error;
    }
    if (!this.closedReason) await this.releaseAccess(lease.accessId);
    return result;
  }

  #reportReleaseFailure(accessId, failure) {
    if (failure instanceof ConnectionLost) return;  // the server is gone, and its leases with it
    // tell(), not emit(): an `error` listener that throws must not take the body's error's place.
    if (this.listenerCount('error') > 0) tell(this, 'error', failure);
    else process.emitWarning(`releasing access ${accessId} failed after the withAccess body threw: ${failure?.message ?? failure}`, 'WharfWarning');
  }

  async createBookmark(url) {
    return (await this.request('createBookmark', { url })).bookmark;
  }

  listAccess() {
    return this.request('listAccess', {});
  }

  /**
   * @param {{url?: string, bookmark?: string}} target
   */
  async revokeAccess({ url, bookmark } = {}) {
    if ((url === undefined) === (bookmark === undefined)) throw new TypeError('give exactly one of url and bookmark');
    return (await this.request('revokeAccess', url !== undefined ? { url } : { bookmark })).revoked;
  }

  /**
   * Reads through a lease: `{data: Buffer, eof}`.
   * @param {string} accessId
   * @param {{offset?: number, length?: number}} options
   */
  async readFile(accessId, { offset = 0, length } = {}) {
    const result = await this.request('readFile', withDefined({ accessId, offset, length }));
    return { data: Buffer.from(result.base64, 'base64'), eof: result.eof };
  }

  /** Writes through a lease that is not read-only; the number of bytes written. */
  async writeFile(accessId, data, { offset = 0, truncate = false } = {}) {
    const base64 = Buffer.from(data).toString('base64');
    return (await this.request('writeFile', { accessId, base64, offset, truncate })).bytesWritten;
  }
}
