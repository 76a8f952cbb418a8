import Glibc

/// The order of a listing: directories first, then names in a case-insensitive "natural" order
/// where runs of digits compare by value (`file2` before `file10`).
///
/// There is no locale collation on this platform without Foundation/ICU, so "localized" is
/// approximated: names are compared by their Unicode-lowercased UTF-8 bytes (code point order),
/// digit runs by numeric value; a name that is not UTF-8 by its bytes with ASCII letters folded.
/// Names equal under that folding (`a` and `A`, `1` and `01`) are ordered by their raw bytes,
/// so the order is total and the same on every listing.
///
/// To keep a 100,000-entry sort cheap, each name is encoded once into a key whose plain byte
/// order is the natural order: letters are folded, and a run of digits becomes a `0` marker,
/// the count of its significant digits, then those digits. The marker sorts against other
/// characters exactly as any digit would (nothing else lies between `0` and `9`), a longer
/// number sorts after a shorter one, and equal lengths compare digit by digit.
enum NameOrdering {
    /// The encoded key of a name.
    static func key(for name: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        appendKey(for: name, to: &bytes)
        return bytes
    }

    /// Appends the encoded key of `name` to `bytes` (a listing keeps all keys in one buffer).
    static func appendKey(for name: [UInt8], to bytes: inout [UInt8]) {
        name.withUnsafeBufferPointer { appendKey(for: $0, to: &bytes) }
    }

    /// The same for a name read where it lies (a listing's names share one buffer).
    static func appendKey(for name: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        if name.allSatisfy({ $0 < 0x80 }) {
            encode(name, into: &bytes)
        } else if let text = String(validating: name, as: UTF8.self) {
            encode(text.lowercased().utf8, into: &bytes)
        } else {
            encode(name, into: &bytes)
        }
    }

    private static func encode(_ source: some Sequence<UInt8>, into bytes: inout [UInt8]) {
        var lengthIndex = -1  // where the current digit run's length byte is, or -1 outside a run
        var leadingZeros = false
        for byte in source {
            if byte >= 0x30 && byte <= 0x39 {
                if lengthIndex < 0 {
                    bytes.append(0x30)
                    lengthIndex = bytes.count
                    bytes.append(0)
                    leadingZeros = true
                }
                if leadingZeros && byte == 0x30 { continue }
                leadingZeros = false
                if bytes[lengthIndex] < 255 { bytes[lengthIndex] += 1 }
                bytes.append(byte)
            } else {
                lengthIndex = -1
                bytes.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            }
        }
    }

    /// Byte order of two encoded keys: -1, 0 or 1 (a key that is a prefix of the other is smaller).
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        if a.count == b.count { return 0 }
        return a.count < b.count ? -1 : 1
    }

    /// The first eight bytes of a key as a big-endian integer (zero-padded), so most comparisons
    /// of a sort are one integer comparison. Equal prefixes say nothing; unequal ones decide.
    @inline(__always)
    static func prefix(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 {
            value = value << 8 | UInt64(index < key.count ? key[index] : 0)
        }
        return value
    }

    /// `a` sorts before `b` (what the listing's sort decides, for single pairs).
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let keyA = key(for: a)
        let keyB = key(for: b)
        let order = keyA.withUnsafeBufferPointer { x in keyB.withUnsafeBufferPointer { y in compare(x, y) } }
        if order != 0 { return order < 0 }
        return a.lexicographicallyPrecedes(b)
    }
}
