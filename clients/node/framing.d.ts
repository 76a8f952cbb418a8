/// <reference types="node" />
export declare const LSP: 'lsp';
export declare const NDJSON: 'ndjson';
export type Framing = typeof LSP | typeof NDJSON;

/** One frame around `body` (JSON text). */
export declare function encodeBody(body: Buffer | string, framing?: Framing): Buffer;
/** `message` as compact JSON text in one frame. */
export declare function encode(message: unknown, framing?: Framing): Buffer;

/** Turns chunks of bytes into whole frame bodies. */
export declare class FrameDecoder {
  constructor(framing?: Framing);
  readonly framing: Framing;
  /** The bodies completed by `chunk`; throws on a header block without a valid Content-Length. */
  push(chunk: Buffer): Buffer[];
  /** True when input stopped inside a frame. */
  readonly partial: boolean;
}
