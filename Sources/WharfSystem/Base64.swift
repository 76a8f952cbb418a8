/// Base64 as RFC 4648 §4 defines it: the standard alphabet, `=` padding to a multiple of four,
/// nothing else.
///
/// Decoding is strict because the text comes from clients and a lenient decoder silently turns
/// a client bug (a URL-safe alphabet, a stray newline, a truncated string) into a corrupt file
/// on the user's disk. Rejected: characters outside the alphabet (whitespace included), a length
/// that is not a multiple of four, `=` anywhere but the last one or two places, and padding
/// whose unused bits are not zero (so every byte string has exactly one accepted encoding).
///
/// Decoding is a large-data path (documents of tens of MiB arrive as base64), so it works on
/// the UTF-8 bytes directly with precomputed, pre-shifted tables: one lookup per character and
/// one OR per group of four.
public enum Base64 {
    /// The encoding of `bytes`, padded.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let fast = bytes.withContiguousStorageIfAvailable { encode(buffer: $0) }
        return fast ?? Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// The bytes `text` encodes, or nil if it is not strict, padded RFC 4648 base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// `decode` for text already held as UTF-8 (or ASCII) bytes.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        if count == 0 { return [] }
        guard count % 4 == 0 else { return nil }
        var padding = 0
        if input[count - 1] == pad { padding = input[count - 2] == pad ? 2 : 1 }
        let outputCount = count / 4 * 3 - padding
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
            MemoryAdvice.preferHugePages(UnsafeMutableRawBufferPointer(out))
            valid = decode(input, padding: padding, into: out)
            initialized = valid ? outputCount : 0
        }
        return valid ? output : nil
    }

    // MARK: Implementation

    private static let pad = UInt8(ascii: "=")
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Marks a character outside the alphabet; above the 24 bits a group of four produces.
    private static let invalid: UInt32 = 1 << 24

    /// `tables[k][c]` is the 6-bit value of character `c` already shifted to its place as the
    /// `k`th character of a group, or `invalid`. One flat array of 4 × 256 entries.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: invalid, count: 4 * 256)
        for (value, character) in alphabet.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(character)] = UInt32(value) << (18 - 6 * position)
            }
        }
        return tables
    }()

    private static func decode(
        _ input: UnsafeBufferPointer<UInt8>, padding: Int, into out: UnsafeMutableBufferPointer<UInt8>
    ) -> Bool {
        tables.withUnsafeBufferPointer { table in
            let groups = input.count / 4
            var errors: UInt32 = 0
            var i = 0
            var o = 0
            // Every group but the last has no padding; errors are collected and checked once,
            // which keeps the loop free of branches.
            for _ in 0..<(groups - 1) {
                let value = table[Int(input[i])] | table[256 + Int(input[i + 1])]
                    | table[512 + Int(input[i + 2])] | table[768 + Int(input[i + 3])]
                errors |= value
                out[o] = UInt8(truncatingIfNeeded: value >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: value >> 8)
                out[o + 2] = UInt8(truncatingIfNeeded: value)
                i += 4
                o += 3
            }
            guard errors & invalid == 0 else { return false }

            // The last group: 0, 1 or 2 padding characters, whose dropped bits must be zero.
            let a = table[Int(input[i])], b = table[256 + Int(input[i + 1])]
            let c = padding == 2 ? 0 : table[512 + Int(input[i + 2])]
            let d = padding >= 1 ? 0 : table[768 + Int(input[i + 3])]
            let value = a | b | c | d
            guard value & invalid == 0 else { return false }
            switch padding {
            case 2:
                guard value & 0xFFFF == 0 else { return false }
                out[o] = UInt8(truncatingIfNeeded: value >> 16)
            case 1:
                guard value & 0xFF == 0 else { return false }
                out[o] = UInt8(truncatingIfNeeded: value >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: value >> 8)
            default:
                out[o] = UInt8(truncatingIfNeeded: value >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: value >> 8)
                out[o + 2] = UInt8(truncatingIfNeeded: value)
            }
            return true
        }
    }

    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let outputCount = (input.count + 2) / 3 * 4
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: outputCount) { out in
                var i = 0
                var o = 0
                while i + 3 <= input.count {
                    let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = alphabet[Int(value >> 18)]
                    out[o + 1] = alphabet[Int(value >> 12 & 63)]
                    out[o + 2] = alphabet[Int(value >> 6 & 63)]
                    out[o + 3] = alphabet[Int(value & 63)]
                    i += 3
                    o += 4
                }
                let rest = input.count - i
                if rest > 0 {
                    let value = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                    out[o] = alphabet[Int(value >> 18)]
                    out[o + 1] = alphabet[Int(value >> 12 & 63)]
                    out[o + 2] = rest == 2 ? alphabet[Int(value >> 6 & 63)] : pad
                    out[o + 3] = pad
                    o += 4
                }
                return o
            }
        }
    }
}
