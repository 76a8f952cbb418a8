/// The order of a listing: directories first, then names in a case-insensitive "natural" order
/// where runs of digits compare by value (`file2` before `file10`).
///
/// There is no locale collation on this platform without Foundation/ICU, so "localized" is
/// approximated: names are compared by their Unicode-lowercased UTF-8 bytes (code point order),
/// digit runs by numeric value. Names equal under that folding (`a` and `A`, `1` and `01`) are
/// ordered by their raw bytes, so the order is total and the same on every listing.
enum NameOrdering {
    /// The folded form of a name that comparisons run on (computed once per entry, not per
    /// comparison).
    static func key(for name: String) -> [UInt8] {
        var isASCII = true
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            if byte >= 0x80 { isASCII = false; break }
            bytes.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        if isASCII { return bytes }
        return Array(name.lowercased().utf8)
    }

    /// Natural comparison of two folded keys: -1, 0 or 1.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            let x = a[i]
            let y = b[j]
            if isDigit(x) && isDigit(y) {
                // Compare the digit runs by value: skip leading zeros, then the longer run is
                // larger, then the first differing digit decides.
                while i < a.count && a[i] == 0x30 { i += 1 }
                while j < b.count && b[j] == 0x30 { j += 1 }
                var endA = i
                while endA < a.count && isDigit(a[endA]) { endA += 1 }
                var endB = j
                while endB < b.count && isDigit(b[endB]) { endB += 1 }
                let lengthA = endA - i
                let lengthB = endB - j
                if lengthA != lengthB { return lengthA < lengthB ? -1 : 1 }
                while i < endA {
                    if a[i] != b[j] { return a[i] < b[j] ? -1 : 1 }
                    i += 1
                    j += 1
                }
                continue
            }
            if x != y { return x < y ? -1 : 1 }
            i += 1
            j += 1
        }
        let restA = a.count - i
        let restB = b.count - j
        if restA == restB { return 0 }
        return restA < restB ? -1 : 1
    }

    /// `a` sorts before `b` (the listing's sort does the same over precomputed keys).
    static func precedes(_ a: String, _ b: String) -> Bool {
        let keyA = key(for: a)
        let keyB = key(for: b)
        let order = keyA.withUnsafeBufferPointer { x in keyB.withUnsafeBufferPointer { y in compare(x, y) } }
        if order != 0 { return order < 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
