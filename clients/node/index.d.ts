/// <reference types="node" />
// Types for wharf-client, written after protocol/wharf.schema.json. Interfaces that mirror a
// schema object carry `@schema <JSON pointer>`; test/types.test.js checks their members against it.

import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import type { Framing } from './framing.js';

export { FrameDecoder, LSP, NDJSON, encode, encodeBody, Framing } from './framing.js';

// Errors

/** Error codes of the protocol by number, named as in the schema's error table. */
export declare const ERROR_NAMES: Readonly<Record<number, string>>;

export declare class WharfError extends Error {}

/** The server answered a request with an error object. */
export declare class RequestError extends WharfError {
  readonly method: string;
  readonly code: number;
  /** The server's own message. */
  readonly serverMessage: string;
  readonly data: unknown;
  /** The code's name in the error table (`accessDenied`), or `unknown`. */
  readonly codeName: string;
}

/**
 * A wait ran out of time: a request got no answer within the client's requestTimeoutMs (it is
 * then cancelled with `$/cancelRequest`), or a dialog did not end within the `timeoutMs` given to
 * result() / finalEvent() (the dialog stays open).
 */
export declare class WharfTimeout extends WharfError {}

/** The server went away while something waited on it. */
export declare class ConnectionLost extends WharfError {}

/** The dialog ended without a choice (SwiftUI's onCancellation). */
export declare class DialogCancelled extends WharfError {
  readonly dialogId: string;
  readonly reason: CancellationReason;
}

/** The dialog ended with the failure side of SwiftUI's Result. */
export declare class DialogFailed extends WharfError {
  readonly dialogId: string;
  readonly code: number;
  readonly serverMessage: string;
  readonly url?: string;
}

// Protocol types

export type ContentTypeIdentifier = string;
/** A `file:` URL. */
export type FileURL = string;
/** An absolute path or a `file:` URL. */
export type PathOrFileURL = string;
export type DialogKind = 'importer' | 'exporter' | 'mover';
/** What a mover does with names already taken in the folder (`dialog/choose`'s `conflictResolution`). */
export type ConflictResolution = 'replace' | 'keepBoth';
export type CancellationReason = 'user' | 'client' | 'timeout' | 'disconnected';
export type BrowserOption = 'enumeratePackages' | 'includeHiddenFiles' | 'displayFileExtensions';

/** @schema #/$defs/InitializeResult */
export interface InitializeResult {
  serverInfo: { name: 'wharf'; version: string };
  protocolVersion: string;
  capabilities: ServerCapabilities;
  /** Who the server takes the client for (newer servers). */
  client?: ClientIdentity;
}

/** Who a client is: over the daemon, the app established from its process. @schema #/$defs/ClientIdentity */
export interface ClientIdentity {
  /** `flatpak:ID`, `snap:NAME`, `exe:PATH` over the daemon; null over standard I/O. */
  app: string | null;
  /** `clientInfo.name`. */
  name: string;
  pid: number | null;
}

/** Who shows this client's dialogs (`connection`: the daemon's presenter connection). */
export type PresenterKind = 'portal' | 'zenity' | 'kdialog' | 'frontend' | 'connection' | 'script';

export type TraceValue = 'off' | 'messages' | 'verbose';

export interface ClientCapabilities {
  /** The client draws dialogs itself (presenter/show → dialog/choose). */
  presentsDialogs?: boolean;
  /** With presentsDialogs: use the desktop's own dialog where it can be used. */
  prefersDesktopDialogs?: boolean;
}

export interface InitializeParams {
  processId?: number | null;
  clientInfo?: { name: string; version?: string };
  capabilities?: ClientCapabilities;
  trace?: TraceValue;
  /** `presenter`: over the daemon's socket, present every other client's dialogs. */
  role?: 'client' | 'presenter';
}

/** @schema #/$defs/ServerCapabilities */
export interface ServerCapabilities {
  ping: boolean;
  framings: Framing[];
  contentTypes: boolean;
  importer: boolean;
  exporter: boolean;
  /** presentMover is served (absent from a server older than it). */
  mover?: boolean;
  access: { bookmarks: boolean; fileIO: boolean; maxTransferBytes: number };
  /** Every presenter that could show this client's dialogs. */
  presenters: PresenterKind[];
  /** The presenter this client's dialogs get; null when none can (present… answers noPresenter). */
  presenter: PresenterKind | null;
  /** Why each other presenter cannot serve this client. */
  unavailablePresenters?: Partial<Record<PresenterKind, string>>;
  maxDialogsPerClient: number;
}

/** An item of a list-valued request that failed on its own. @schema #/$defs/ItemError */
export interface ItemError {
  code: number;
  message: string;
  data?: unknown;
}

/** @schema #/$defs/TypeDescription */
export interface TypeDescription {
  identifier: ContentTypeIdentifier;
  description: string;
  conformsTo: ContentTypeIdentifier[];
  supertypes: ContentTypeIdentifier[];
  preferredFilenameExtension: string | null;
  filenameExtensions: string[];
  preferredMIMEType: string | null;
  mimeTypes: string[];
  isDeclared: boolean;
  isDynamic: boolean;
}

/** @schema #/$defs/Identification */
export interface Identification {
  path: string;
  identifier: ContentTypeIdentifier;
  mimeType: string;
  source: 'extension' | 'magic' | 'fallback' | 'fileSystem';
}

/** @schema #/$defs/TypeDeclaration */
export interface TypeDeclaration {
  identifier: ContentTypeIdentifier;
  conformsTo: ContentTypeIdentifier[];
  filenameExtensions?: string[];
  mimeTypes?: string[];
  description?: string;
}

/** @schema #/requests/contentTypes~1filters/result */
export interface FiltersResult {
  globs: string[];
  mimeTypes: string[];
  directories: boolean;
  allowsAllFiles: boolean;
}

/** @schema #/$defs/DialogFilters */
export interface DialogFilters {
  globs: string[];
  mimeTypes: string[];
  directories: boolean;
  /** Every file passes; false with empty lists: none does (a folder picker). Absent from older servers. */
  allowsAllFiles?: boolean;
}

/** The declarative stand-in for fileDialogURLEnabled's closure: exactly one operator. */
export type URLPredicate =
  | { all: URLPredicate[] } | { any: URLPredicate[] } | { not: URLPredicate }
  | { nameMatches: string } | { pathMatches: string } | { conformsTo: ContentTypeIdentifier }
  | { sizeAtMost: number } | { sizeAtLeast: number } | { modifiedAfter: string }
  | { isDirectory: boolean } | { isHidden: boolean };

/** SwiftUI's dialog modifiers. @schema #/$defs/DialogOptions */
export interface DialogOptions {
  defaultDirectory?: PathOrFileURL;
  title?: string;
  message?: string;
  confirmationLabel?: string;
  browserOptions?: BrowserOption[];
  urlEnabled?: URLPredicate;
  importsUnresolvedAliases?: boolean;
  customizationId?: string;
  timeoutMs?: number;
  filenameLabel?: string;
  /** Named filters the person switches between; the completion's `filter` says which was in force. */
  filters?: { name: string; predicate: URLPredicate }[];
  currentFilter?: number;
  /** Choices beside the file list; the completion's `choices` holds their values by id. */
  choices?: DialogChoice[];
}

/** A choice beside the file list: a check box without `options`. @schema #/$defs/DialogChoice */
export interface DialogChoice {
  id: string;
  label: string;
  options?: { id: string; label: string }[];
  initial?: string;
}

/** @schema #/$defs/DirectoryEntry */
/** One type an exporter offers (`presenter/show`'s `contentTypeChoices`). */
export interface ContentTypeChoice {
  contentType: ContentTypeIdentifier;
  /** What a type chooser shows; null when the type has no description. */
  description: string | null;
  /** Each document's name when the human picks this type. */
  filenames: string[];
}

export interface DirectoryEntry {
  name: string;
  url: FileURL;
  isDirectory: boolean;
  isPackage: boolean;
  isHidden: boolean;
  isSymlink: boolean;
  contentType: ContentTypeIdentifier;
  size: number;
  /** ISO 8601 */
  modified: string;
  enabled: boolean;
  /** Why `enabled` is false, as `dialog/choose` would say it; absent when enabled. */
  disabledReason?: string;
}

/** @schema #/requests/dialog~1list/result */
export interface DirectoryListing {
  directory: FileURL;
  parent: FileURL | null;
  entries: DirectoryEntry[];
  nextCursor?: string;
  /** Importers: whether `directory` itself may be chosen (a folder picker's choice); absent for an exporter. */
  directoryEnabled?: boolean;
  /** Why `directoryEnabled` is false, as `dialog/choose` would say it. */
  directoryDisabledReason?: string;
}

/** @schema #/$defs/Lease */
export interface Lease {
  accessId: string;
  url: FileURL;
  /** For display: a byte of the name that is not UTF-8 shows as U+FFFD. To open the file, use `urlToPath(url)`. */
  path: string;
  readOnly: boolean;
  isStale: boolean;
  bookmark: string | null;
  isDirectory: boolean;
}

/** @schema #/$defs/AccessEntry */
export interface AccessEntry {
  id: string;
  kind: 'grant' | 'bookmark';
  url: FileURL;
  /** For display, as a Lease's. */
  path: string;
  readOnly: boolean;
  isDirectory: boolean;
  activeLeases: number;
  created: string;
  bookmark?: string;
}

/** @schema #/requests/listAccess/result */
export interface AccessList {
  entries: AccessEntry[];
  activeLeases: number;
}

/** The error of a dialog that failed (`dialog/completed` with `error`). */
export interface DialogFailure {
  code: number;
  message: string;
  url?: FileURL;
}

export interface PresentationChangedParams { dialogId: string; isPresented: boolean }
export interface ProgressParams { dialogId: string; bytesWritten: number; totalBytes: number }
export type CompletedParams =
  | { dialogId: string; kind: DialogKind; urls: FileURL[]; contentTypes?: ContentTypeIdentifier[]; filter?: number; choices?: Record<string, string> }
  | { dialogId: string; kind: DialogKind; error: DialogFailure };
export interface CancelledParams { dialogId: string; kind: DialogKind; reason: CancellationReason }
/** Made by the client when the server went away before the dialog ended. */
export interface DisconnectedParams { dialogId: string; message: string }

/** What the server says about a dialog, in order; `kind` tells which params it carries. */
export type DialogEvent =
  | { readonly kind: 'presentationChanged'; readonly params: PresentationChangedParams; readonly isFinal: false }
  | { readonly kind: 'progress'; readonly params: ProgressParams; readonly isFinal: false }
  | { readonly kind: 'completed'; readonly params: CompletedParams; readonly isFinal: true }
  | { readonly kind: 'cancelled'; readonly params: CancelledParams; readonly isFinal: true }
  | { readonly kind: 'disconnected'; readonly params: DisconnectedParams; readonly isFinal: true };

/** `presenter/show`: a dialog for the frontend to draw. */
export interface PresenterShowParams {
  dialogId: string;
  kind: DialogKind;
  title: string | null;
  message: string | null;
  confirmationLabel: string | null;
  allowedContentTypes: ContentTypeIdentifier[];
  allowsMultipleSelection: boolean;
  filters: DialogFilters;
  directory: FileURL;
  browserOptions: BrowserOption[];
  /** Exporters: the suggested name, with the preferred extension. */
  filename?: string;
  /** Exporters: one name per document. */
  filenames?: string[];
  contentTypes?: ContentTypeIdentifier[];
  filenameLabel?: string | null;
  documentCount?: number;
  /** Exporters: one for each of `contentTypes`, in order. */
  contentTypeChoices?: ContentTypeChoice[];
  /** Movers: the files to be moved, in the order the app gave them. */
  mover?: { urls: FileURL[] };
  /** To the daemon's presenter connection: whose dialog it is. */
  client?: ClientIdentity;
  /** The dialog's named filters, each as a file view shows it, and the one selected first. */
  namedFilters?: { name: string; filters: DialogFilters }[];
  currentFilter?: number;
  /** Choices to show beside the file list, each with its initial value. */
  choices?: DialogChoice[];
}

/** A document's contents on the wire (`fd`: a descriptor passed over the daemon's socket). */
export type ContentsJSON = { text: string } | { base64: string } | { path: string } | { fd: number };

export interface DocumentJSON {
  filename?: string;
  writableContentTypes: ContentTypeIdentifier[];
  contents?: ContentsJSON;
}

type Empty = Record<string, never>;
type DialogRef = { dialogId: string };

/**
 * Every request a client sends, with its params and result: the typed twin of
 * vscode-jsonrpc's `RequestType<P, R>`s. `params` including `undefined` may be left out.
 */
export interface RequestMap {
  initialize: { params: InitializeParams; result: InitializeResult };
  shutdown: { params: undefined | null; result: null };
  ping: { params: Empty | undefined | null; result: Empty };
  'contentTypes/describe': { params: { identifiers: ContentTypeIdentifier[] }; result: { types: Array<TypeDescription | { identifier: string; error: ItemError }> } };
  'contentTypes/identify': { params: { paths: PathOrFileURL[]; sniff?: boolean; followSymlinks?: boolean }; result: { results: Array<Identification | { path: string; error: ItemError }> } };
  'contentTypes/conforms': { params: { identifier: ContentTypeIdentifier; to: ContentTypeIdentifier }; result: { conforms: boolean } };
  'contentTypes/fromFilenameExtension': { params: { filenameExtension: string; conformingTo?: ContentTypeIdentifier }; result: { identifier: ContentTypeIdentifier | null } };
  'contentTypes/fromMIMEType': { params: { mimeType: string; conformingTo?: ContentTypeIdentifier }; result: { identifier: ContentTypeIdentifier | null } };
  'contentTypes/declare': { params: { types: TypeDeclaration[] }; result: { declared: ContentTypeIdentifier[] } };
  'contentTypes/filters': { params: { identifiers: ContentTypeIdentifier[] }; result: FiltersResult };
  presentImporter: { params: { allowedContentTypes: ContentTypeIdentifier[]; allowsMultipleSelection?: boolean; presentationId?: string; options?: DialogOptions }; result: DialogRef };
  presentExporter: { params: { documents: DocumentJSON[]; contentType?: ContentTypeIdentifier; contentTypes?: ContentTypeIdentifier[]; defaultFilename?: string; presentationId?: string; options?: DialogOptions }; result: DialogRef };
  presentMover: { params: { urls: PathOrFileURL[]; presentationId?: string; options?: DialogOptions }; result: DialogRef };
  cancel: { params: DialogRef; result: { cancelled: boolean } };
  'dialog/list': { params: DialogRef & { directory?: PathOrFileURL; cursor?: string; limit?: number; showHidden?: boolean; filter?: number }; result: DirectoryListing };
  'dialog/choose': { params: DialogRef & { filter?: number; choices?: Record<string, string> } & ({ urls: PathOrFileURL[] } | { url: PathOrFileURL; contentType?: ContentTypeIdentifier; overwrite?: boolean; conflictResolution?: ConflictResolution }); result: Empty };
  'dialog/dismiss': { params: DialogRef; result: Empty };
  'dialog/fail': { params: DialogRef & { message: string }; result: Empty };
  resolveAccess: { params: { url: PathOrFileURL } | { bookmark: string }; result: Lease };
  releaseAccess: { params: { accessId: string }; result: Empty };
  createBookmark: { params: { url: PathOrFileURL }; result: { bookmark: string } };
  listAccess: { params: Empty | undefined | null; result: AccessList };
  revokeAccess: { params: { url: PathOrFileURL } | { bookmark: string }; result: { revoked: number } };
  readFile: { params: { accessId: string; offset?: number; length?: number }; result: { base64: string; eof: boolean } };
  writeFile: { params: { accessId: string; base64: string; offset?: number; truncate?: boolean }; result: { bytesWritten: number } };
}

/** Requests the server sends the client. */
export interface ServerRequestMap {
  'exporter/snapshot': { params: { dialogId: string; documentIndex: number; contentType: ContentTypeIdentifier }; result: ContentsJSON };
}

/** Notifications the client sends. */
export interface ClientNotificationMap {
  initialized: Empty | undefined | null;
  exit: undefined | null;
  '$/cancelRequest': { id: number | string };
  '$/setTrace': { value: TraceValue };
}

/** Notifications the server sends. */
export interface ServerNotificationMap {
  'dialog/presentationChanged': PresentationChangedParams;
  'dialog/progress': ProgressParams;
  'dialog/completed': CompletedParams;
  'dialog/cancelled': CancelledParams;
  'presenter/show': PresenterShowParams;
  'presenter/hide': DialogRef;
  '$/logTrace': { message: string; verbose?: string };
}

/** The params argument of a request or notification: optional where `undefined` is allowed. */
export type ParamsArgument<P> = undefined extends P ? [params?: P] : [params: P];

/** A request's params by method; anything for a method the map does not know. */
export type RequestParams<M extends string> = M extends keyof RequestMap ? RequestMap[M]['params'] : unknown;
/** A request's result by method; `unknown` for a method the map does not know. */
export type RequestResult<M extends string> = M extends keyof RequestMap ? RequestMap[M]['result'] : unknown;
export type NotificationParams<M extends string> = M extends keyof ClientNotificationMap ? ClientNotificationMap[M] : unknown;

/** A document's bytes: text, bytes, or a file the client already has. */
export type DocumentContents = string | Uint8Array | { path: string };

export interface ExportDocument {
  writableContentTypes: ContentTypeIdentifier[];
  filename?: string;
  /** A value document (SwiftUI's FileDocument). */
  contents?: DocumentContents;
  /** A lazy document (WritableDocument): produced once the human has chosen where to save. */
  snapshot?: (contentType: ContentTypeIdentifier) => DocumentContents | Promise<DocumentContents>;
}

// Objects

/** How long to wait for a dialog to end. */
export interface WaitOptions {
  /** Milliseconds; default, 0 or Infinity: no limit (dialogs wait on humans). */
  timeoutMs?: number;
}

export declare class Dialog extends EventEmitter implements AsyncIterable<DialogEvent> {
  readonly id: string;
  readonly kind: DialogKind;
  readonly done: boolean;
  /** The events so far: the last EVENTS_KEPT before the final one, and the final one (`event` listeners hear every one). */
  readonly events: DialogEvent[];
  /** For a completed exporter: the type each document was written as. */
  readonly contentTypes: ContentTypeIdentifier[] | undefined;
  /**
   * The URLs; rejects with DialogCancelled, DialogFailed or ConnectionLost, or with WharfTimeout
   * once `timeoutMs` has passed (the dialog stays open; cancel() ends it).
   */
  result(options?: WaitOptions): Promise<FileURL[]>;
  /** The final event; rejects with WharfTimeout once `timeoutMs` has passed (the dialog stays open). */
  finalEvent(options?: WaitOptions): Promise<DialogEvent>;
  /** Ends the dialog from the app side (reason `client`); false if it had already ended. */
  cancel(): Promise<boolean>;
  [Symbol.asyncIterator](): AsyncIterator<DialogEvent>;
  on(event: 'event', listener: (event: DialogEvent) => void): this;
}

/** The frontend role: one dialog to draw (`presenter/show`). */
export declare class Presentation extends EventEmitter {
  readonly params: PresenterShowParams;
  readonly dialogId: string;
  readonly kind: DialogKind;
  readonly title: string | null;
  readonly message: string | null;
  readonly confirmationLabel: string | null;
  readonly allowedContentTypes: ContentTypeIdentifier[];
  readonly allowsMultipleSelection: boolean;
  readonly filters: DialogFilters;
  readonly directory: FileURL;
  readonly browserOptions: BrowserOption[];
  readonly filename: string | null;
  /** Exporters: one name per document ([] for an importer). */
  readonly filenames: string[];
  readonly contentTypes: ContentTypeIdentifier[];
  readonly filenameLabel: string | null;
  /** Exporters: how many documents are saved (0 for an importer). */
  readonly documentCount: number;
  /** Exporters: one for each of `contentTypes`, in order ([] for an importer or an older server). */
  readonly contentTypeChoices: ContentTypeChoice[];
  /** Movers: the files to be moved, in the order the app gave them ([] for the others). */
  readonly moverUrls: FileURL[];
  readonly hidden: boolean;
  /** `showHidden`: list hidden files (names starting with "."), or not; default: as the dialog's `includeHiddenFiles`. */
  list(options?: { directory?: PathOrFileURL; cursor?: string; limit?: number; showHidden?: boolean }): Promise<DirectoryListing>;
  entries(options?: { directory?: PathOrFileURL; pageSize?: number; showHidden?: boolean }): AsyncIterable<DirectoryEntry>;
  choose(urls: PathOrFileURL[]): Promise<void>;
  save(url: PathOrFileURL, options?: { contentType?: ContentTypeIdentifier; overwrite?: boolean }): Promise<void>;
  /**
   * A mover: the human chose `folder`. Names taken there without `conflictResolution` reject
   * with RequestError `nameConflict` (`data.urls`, `data.names`) and the dialog stays open: ask
   * the human, then move again with `'replace'` or `'keepBoth'`.
   */
  move(folder: PathOrFileURL, options?: { conflictResolution?: ConflictResolution }): Promise<void>;
  dismiss(): Promise<void>;
  fail(message: string): Promise<void>;
  on(event: 'hide', listener: () => void): this;
}

export interface SpawnOptions {
  /** The wharf binary; default `$WHARF`, then `wharf` on PATH, then /usr/local/bin/wharf, /usr/bin/wharf. */
  wharf?: string;
  args?: string[];
  /** The app identity grants and bookmarks belong to. */
  app?: string;
  presentsDialogs?: boolean;
  /** With presentsDialogs: use the desktop's own dialog where it can be used. */
  prefersDesktopDialogs?: boolean;
  /** Takes the frontend role from the start (see WharfClient.onPresent). */
  onPresent?: (presentation: Presentation) => void | Promise<void>;
  framing?: Framing;
  env?: Record<string, string>;
  initialize?: boolean;
  /** How long each request waits for its answer (default DEFAULT_REQUEST_TIMEOUT_MS; 0 or Infinity: no limit). */
  requestTimeoutMs?: number;
}

export interface PresentOptions extends DialogOptions {
  presentationId?: string;
  /** Aborting cancels the dialog (reason `client`). */
  signal?: AbortSignal;
}

/** How long a request waits for its answer by default (60 000 ms) before rejecting with WharfTimeout: a guard against a wedged server. */
export declare const DEFAULT_REQUEST_TIMEOUT_MS: number;
/** How many events before its final one a Dialog keeps (64): older ones are dropped, the final one never. */
export declare const EVENTS_KEPT: number;
/** Where an installed wharf is looked for after $WHARF and PATH: /usr/local/bin/wharf, /usr/bin/wharf. */
export declare const INSTALLED_LOCATIONS: readonly string[];
/** What dialog/fail says for a dialog shown while no onPresent handler is registered. */
export declare const NO_HANDLER_MESSAGE: string;
/** `path`, else $WHARF, else `wharf` on PATH, else the first of `locations` that exists. */
export declare function findWharf(path?: string, options?: { locations?: readonly string[] }): string;
export declare function contentsJSON(value: DocumentContents): { text: string } | { base64: string } | { path: string };
/**
 * The path to open for a `file:` URL on this machine (no host, or `localhost`), byte for byte: a
 * string when the name is UTF-8, else a Buffer of its exact bytes (fs functions take either).
 * Throws TypeError for any other URL, or one with a query or fragment.
 */
export declare function urlToPath(url: FileURL): string | Buffer;

export declare class WharfClient extends EventEmitter {
  constructor(readable: Readable, writable: Writable, options?: { framing?: Framing; child?: ChildProcess | null; requestTimeoutMs?: number });
  static spawn(options?: SpawnOptions): Promise<WharfClient>;
  readonly child: ChildProcess | null;
  initializeResult: InitializeResult | null;
  /** Why the connection ended, once it has. */
  readonly closedReason: string | null;

  /**
   * How long each request waits for its answer, in milliseconds (0 or Infinity: no limit); then it
   * rejects with WharfTimeout and the server is sent `$/cancelRequest`. Applies to requests sent after it is set.
   */
  requestTimeoutMs: number;

  /** Typed by method (see RequestMap); a method the map does not know takes and gives `unknown`. */
  request<M extends string>(method: M, ...params: ParamsArgument<RequestParams<M>>): Promise<RequestResult<M>>;
  notify<M extends string>(method: M, ...params: ParamsArgument<NotificationParams<M>>): void;
  on(event: 'notification', listener: <M extends keyof ServerNotificationMap>(method: M, params: ServerNotificationMap[M]) => void): this;
  on(event: 'traffic', listener: (direction: 'send' | 'receive', message: unknown) => void): this;
  on(event: 'close', listener: (error: ConnectionLost) => void): this;
  /** A failure nothing awaits: an onPresent handler's, or a release that failed after a withAccess body threw. */
  on(event: 'error', listener: (error: unknown) => void): this;

  initialize(options?: { app?: string; presentsDialogs?: boolean; prefersDesktopDialogs?: boolean; trace?: TraceValue; version?: string }): Promise<InitializeResult>;
  /** Which presenter this client's dialogs get (initialize's capabilities.presenter), or null. */
  readonly presenter: PresenterKind | null;
  ping(): Promise<void>;
  /**
   * shutdown + exit if the server is still there; the exit status of a spawned server (null if it had to be killed after `timeoutMs`, default 10 000).
   * Required: until it is called, the server's pipes keep Node running.
   */
  close(options?: { timeoutMs?: number }): Promise<number | null>;

  describeTypes(identifiers: ContentTypeIdentifier[]): Promise<Array<TypeDescription | { identifier: string; error: ItemError }>>;
  identify(paths: PathOrFileURL[], options?: { sniff?: boolean }): Promise<Array<Identification | { path: string; error: ItemError }>>;
  conforms(identifier: ContentTypeIdentifier, to: ContentTypeIdentifier): Promise<boolean>;
  typeForExtension(filenameExtension: string, conformingTo?: ContentTypeIdentifier): Promise<ContentTypeIdentifier | null>;
  typeForMIMEType(mimeType: string, conformingTo?: ContentTypeIdentifier): Promise<ContentTypeIdentifier | null>;
  declareTypes(types: TypeDeclaration[]): Promise<ContentTypeIdentifier[]>;
  filters(identifiers: ContentTypeIdentifier[]): Promise<FiltersResult>;

  presentImporter(allowedContentTypes: ContentTypeIdentifier[], options?: PresentOptions & { multiple?: boolean }): Promise<Dialog>;
  presentExporter(documents: ExportDocument[], options?: PresentOptions & {
    /** The FileDocument form. */
    contentType?: ContentTypeIdentifier;
    /** The WritableDocument form. */
    contentTypes?: ContentTypeIdentifier[];
    defaultFilename?: string;
  }): Promise<Dialog>;
  /**
   * Presents a mover (fileMover): the human chooses a folder and `urls`, each one this client
   * was given, are moved there. The dialog's result is their new URLs in the order given, which
   * the client holds the same rights to. A URL not granted rejects with RequestError
   * `accessDenied` and nothing is presented.
   */
  presentMover(urls: PathOrFileURL[], options?: PresentOptions): Promise<Dialog>;
  /** Takes the frontend role (initialize with `presentsDialogs: true`). */
  onPresent(handler: (presentation: Presentation) => void | Promise<void>): void;

  resolveAccess(target: { url: PathOrFileURL } | { bookmark: string }): Promise<Lease>;
  releaseAccess(accessId: string): Promise<void>;
  /**
   * Resolves access, runs `body` with the path to open (`urlToPath(lease.url)`), always releases. If `body` throws, that
   * is what rejects, and a release failing too is reported on `error` (or as a process warning), not in its place.
   */
  withAccess<T>(target: PathOrFileURL | { url: PathOrFileURL } | { bookmark: string }, body: (path: string | Buffer, lease: Lease) => T | Promise<T>): Promise<T>;
  createBookmark(url: PathOrFileURL): Promise<string>;
  listAccess(): Promise<AccessList>;
  revokeAccess(target: { url: PathOrFileURL } | { bookmark: string }): Promise<number>;
  readFile(accessId: string, options?: { offset?: number; length?: number }): Promise<{ data: Buffer; eof: boolean }>;
  writeFile(accessId: string, data: Uint8Array | string, options?: { offset?: number; truncate?: boolean }): Promise<number>;
}
