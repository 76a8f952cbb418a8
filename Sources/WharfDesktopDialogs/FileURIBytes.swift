/// `file://` URIs → the exact bytes of the path they name.
///
/// The portal returns every choice as a `file://` URI in which each byte outside the
/// unreserved set is percent-encoded, so a name that is not UTF-8 (`caf\xE9.txt`, Latin-1)
/// arrives as `caf%E9.txt` and must come back as the byte 0xE9, not as text. Only local URIs
/// (empty or `localhost` authority) are paths; a `?query` or `#fragment` is not part of one.
public enum FileURIBytes {
    public static func path(fromURI uri: String) -> [UInt8]? {
        let bytes = Array(uri.utf8)
        let scheme = Array("file://".utf8)
        guard bytes.count > scheme.count,
              bytes.prefix(scheme.count).map(asciiLower).elementsEqual(scheme) else { return nil }
        var rest = bytes[scheme.count...]
        if rest.first != UInt8(ascii: "/") {
            let host = Array("localhost".utf8)
            guard rest.count > host.count, rest.prefix(host.count).map(asciiLower).elementsEqual(host),
                  rest[rest.startIndex + host.count] == UInt8(ascii: "/") else { return nil }
            rest = rest.dropFirst(host.count)
        }
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            rest = rest[..<end]
        }
        var path: [UInt8] = []
        path.reserveCapacity(rest.count)
        var index = rest.startIndex
        while index < rest.endIndex {
            let byte = rest[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < rest.endIndex, let high = hexValue(rest[index + 1]), let low = hexValue(rest[index + 2]) else { return nil }
                path.append(high << 4 | low)
                index += 3
            } else {
                path.append(byte)
                index += 1
            }
        }
        guard path.first == UInt8(ascii: "/"), !path.contains(0) else { return nil }
        return path
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - 55
        default: return nil
        }
    }
}
