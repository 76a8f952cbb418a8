import WharfSystem

/// `file://` URIs → the exact bytes of the path they name.
///
/// The portal returns every choice as a `file://` URI in which each byte outside the
/// unreserved set is percent-encoded, so a name that is not UTF-8 (`caf\xE9.txt`, Latin-1)
/// arrives as `caf%E9.txt` and must come back as the byte 0xE9, not as text. Only local URIs
/// (empty or `localhost` authority) are paths; a `?query` or `#fragment` is not part of one.
public enum FileURIBytes {
    public static func path(fromURI uri: String) -> [UInt8]? {
        // The scheme and the host are case-insensitive (RFC 3986); FileURL reads them in
        // lower case, and decodes the rest.
        var bytes = Array(uri.utf8)
        let scheme = Array("file://".utf8), host = Array("localhost".utf8)
        guard bytes.count > scheme.count, bytes.prefix(scheme.count).map(lowercaseASCII).elementsEqual(scheme) else { return nil }
        bytes.replaceSubrange(..<scheme.count, with: scheme)
        let hostEnd = scheme.count + host.count
        if bytes.count > hostEnd, bytes[scheme.count..<hostEnd].map(lowercaseASCII).elementsEqual(host) {
            bytes.replaceSubrange(scheme.count..<hostEnd, with: host)
        }
        // A query or fragment the portal might append is not part of the path (FileURL refuses
        // URLs with one, since a client's would name another file; the portal's we read past).
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            bytes.removeSubrange(end...)
        }
        return FileURL.path(from: String(decoding: bytes, as: UTF8.self))?.bytes
    }
}
