// The local path a `file:` URL names, byte for byte.
//
// A Linux file name is bytes and need not be UTF-8. Wharf names files by URL, percent-encoding
// every byte of the path but unreserved ASCII and `/`; the text `path` beside a URL (a lease's,
// an access entry's) is for display only: bytes that are not UTF-8 show there as U+FFFD, so
// `x` + byte 0xFF and `x` + U+FFFD read the same, and opening the text may open the other file
// (protocol/README.md, "Paths are bytes"). Node's fileURLToPath does not help: it decodes the
// bytes as UTF-8 and throws on any that are not.

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The path to open for `url`, a `file:` URL on this machine (no host, or `localhost`): a string
 * when its bytes are UTF-8 (the common case, and what string code expects), else a Buffer of the
 * exact bytes, which Node's fs functions take as they take a string. Throws TypeError for any
 * other URL, or one with a query or fragment (a `?` or `#` in a name is `%3F` or `%23`).
 */
export function urlToPath(url) {
  const parsed = new URL(url);
  if (parsed.protocol !== 'file:' || parsed.host !== '' || parsed.search || parsed.hash) {
    throw new TypeError(`not the URL of a local file: ${url}`);
  }
  // The parsed pathname is ASCII (the parser percent-encodes the rest as UTF-8), so once each
  // %XX is the character XX, latin1 makes every character the byte it stands for.
  const escaped = parsed.pathname.replace(/%([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
  const bytes = Buffer.from(escaped, 'latin1');
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes;
  }
}
