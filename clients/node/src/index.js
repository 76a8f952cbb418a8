// wharf-client: a Node client for Wharf, SwiftUI's fileImporter/fileExporter semantics over JSON-RPC.
export { DEFAULT_REQUEST_TIMEOUT_MS, Dialog, EVENTS_KEPT, INSTALLED_LOCATIONS, NO_HANDLER_MESSAGE, Presentation, WharfClient, contentsJSON, findWharf } from './client.js';
export { ConnectionLost, DialogCancelled, DialogFailed, ERROR_NAMES, RequestError, WharfError, WharfTimeout } from './errors.js';
export { FrameDecoder, LSP, NDJSON, encode, encodeBody } from './framing.js';
export { urlToPath } from './paths.js';
