/// `file:` URLs, the form in which Wharf hands paths to clients (as SwiftUI hands `URL`s).
///
/// A URL is text but a path is bytes, so every byte that is not an unreserved ASCII character or
/// `/` is percent-encoded on the way out: any byte sequence a Linux path can hold, UTF-8 or not,
/// survives the round trip exactly, and two different paths never share a URL. On the way in,
/// `%XX` escapes decode to their bytes and everything else stands for its own UTF-8 bytes, as
/// the client wrote them (no Unicode normalisation).
///
/// Only the `file:` scheme with an empty or `localhost` authority is accepted.
public enum FileURL {
    /// `/tmp/a b.txt` → `file:///tmp/a%20b.txt`; a name with the byte 0xFF → `…%FF`.
    public static func from(path: FilePath) -> String {
        var out: [UInt8] = Array("file://".utf8)
        out.reserveCapacity(path.bytes.count + 16)
        for byte in path.bytes {
            if isUnreserved(byte) || byte == UInt8(ascii: "/") {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
        }
        // Only ASCII was appended, so this decodes nothing.
        return String(decoding: out, as: UTF8.self)
    }

    /// `file:///tmp/a%20b.txt` → `/tmp/a b.txt`; nil for anything that is not a local file URL,
    /// a URL with a query or a fragment, a malformed escape, or what does not decode to an
    /// absolute path without NUL bytes.
    public static func path(from url: String) -> FilePath? {
        let rest: Substring.UTF8View
        if url.hasPrefix("file:///") {
            rest = url.dropFirst(7).utf8
        } else if url.hasPrefix("file://localhost/") {
            rest = url.dropFirst(16).utf8
        } else {
            return nil
        }
        // A query or a fragment names nothing on disk; cut off, the rest would name another
        // file. A name holding `?` or `#` has them escaped (`%3F`, `%23`), as `from(path:)` does.
        if rest.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rest.count)
        var iterator = rest.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard bytes.first == UInt8(ascii: "/"), let path = FilePath(bytes: bytes) else { return nil }
        return path
    }

    /// Accepts either a `file:` URL or an absolute path (the protocol allows both in a few
    /// places, such as `defaultDirectory`). A path given as text is its UTF-8 bytes; a name that
    /// is not UTF-8 can only be named by a URL.
    public static func pathOrURL(_ value: String) -> FilePath? {
        if value.hasPrefix("/") { return FilePath(value) }
        return path(from: value)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 48 : nibble + 55
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
