/// `file:` URLs, the form in which Wharf hands paths to clients (as SwiftUI hands `URL`s).
///
/// Only the `file:` scheme with an empty or `localhost` authority is accepted; everything but
/// unreserved characters and `/` is percent-encoded on the way out, so any byte sequence a Linux
/// path can hold survives the round trip.
public enum FileURL {
    /// `/tmp/a b.txt` → `file:///tmp/a%20b.txt`.
    public static func from(path: String) -> String {
        var out = "file://"
        out.reserveCapacity(path.utf8.count + 8)
        for byte in path.utf8 {
            if isUnreserved(byte) || byte == UInt8(ascii: "/") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + hex(byte >> 4) + hex(byte & 0xF)
            }
        }
        return out
    }

    /// `file:///tmp/a%20b.txt` → `/tmp/a b.txt`; nil for anything that is not a local file URL
    /// or that decodes to something other than an absolute path without NUL bytes.
    public static func path(from url: String) -> String? {
        var rest: Substring
        if url.hasPrefix("file:///") {
            rest = url.dropFirst(7)
        } else if url.hasPrefix("file://localhost/") {
            rest = url.dropFirst(16)
        } else {
            return nil
        }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rest.utf8.count)
        var iterator = rest.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0), bytes.first == UInt8(ascii: "/") else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Accepts either a `file:` URL or an absolute path (the protocol allows both in a few
    /// places, such as `defaultDirectory`).
    public static func pathOrURL(_ value: String) -> String? {
        if value.hasPrefix("/") { return value.utf8.contains(0) ? nil : value }
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

    private static func hex(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? nibble + 48 : nibble + 55))
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
