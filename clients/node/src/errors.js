// Errors. Every one says what happened in words a person can act on.

/** Error codes of the protocol, by number (protocol/wharf.schema.json, "errors"). */
export const ERROR_NAMES = Object.freeze({
  [-32700]: 'parseError',
  [-32600]: 'invalidRequest',
  [-32601]: 'methodNotFound',
  [-32602]: 'invalidParams',
  [-32603]: 'internalError',
  [-32002]: 'serverNotInitialized',
  [-32800]: 'requestCancelled',
  [-32010]: 'noPresenter',
  [-32011]: 'alreadyPresented',
  [-32012]: 'tooManyDialogs',
  [-32013]: 'dialogNotFound',
  [-32014]: 'dialogEnded',
  [-32015]: 'choiceRejected',
  [-32016]: 'fileExists',
  [-32017]: 'notPresenter',
  [-32018]: 'presenterRefused',
  [-32019]: 'presenterBacklog',
  [-32020]: 'accessDenied',
  [-32021]: 'bookmarkInvalid',
  [-32022]: 'accessNotFound',
  [-32030]: 'fileOperationFailed',
  [-32031]: 'nameConflict',
  [-32040]: 'presenterFailed',
  [-32041]: 'snapshotFailed',
  [-32050]: 'tooManyClients',
});

/** Base of every error this package throws. */
export class WharfError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The server answered a request with an error object. */
export class RequestError extends WharfError {
  constructor(method, code, message, data) {
    super(`${method} failed with ${code} (${ERROR_NAMES[code] ?? 'unknown'}): ${message}`);
    this.method = method;
    this.code = code;
    this.serverMessage = message;
    this.data = data;
  }

  /** The code's name in the protocol's error table (`accessDenied`), or `unknown`. */
  get codeName() {
    return ERROR_NAMES[this.code] ?? 'unknown';
  }
}

/**
 * A wait ran out of time: a request got no answer within the client's `requestTimeoutMs` (the
 * request is then cancelled with `$/cancelRequest`), or a dialog did not end within the
 * `timeoutMs` given to `result()` / `finalEvent()` (the dialog stays open).
 */
export class WharfTimeout extends WharfError {}

/** The server went away while something waited on it; every pending call and open dialog fails with it. */
export class ConnectionLost extends WharfError {}

/**
 * The dialog ended without a choice (SwiftUI's onCancellation): `reason` is `user`, `client`,
 * `timeout` or `disconnected`. A rejection rather than an empty result, so that a cancellation
 * is never mistaken for an empty choice.
 */
export class DialogCancelled extends WharfError {
  constructor(dialogId, reason) {
    super(`dialog ${dialogId} was cancelled (${reason})`);
    this.dialogId = dialogId;
    this.reason = reason;
  }
}

/** The dialog ended with the failure side of SwiftUI's Result. */
export class DialogFailed extends WharfError {
  constructor(dialogId, code, message, url) {
    super(`dialog ${dialogId} failed with ${code} (${ERROR_NAMES[code] ?? 'unknown'}): ${message}`);
    this.dialogId = dialogId;
    this.code = code;
    this.serverMessage = message;
    this.url = url;
  }
}
