/// Base32 as RFC 4648 §6 defines it, with the alphabet in lowercase and no padding: the form of
/// Wharf's tokens (bookmarks, access ids) and of dynamic type identifiers (`dyn.…`), both of
/// which must survive case-insensitive comparison and contain no punctuation.
///
/// Letters are worked out rather than looked up in a table: a static table is reached through
/// `swift_once`, which under ThreadSanitizer takes a lock on every access, and dynamic
/// identifiers are encoded for every type of the MIME database when a dialog's filters are.
public enum Base32 {
    /// The encoding of `bytes`, unpadded (the last letter carries the leftover bits, zero-filled).
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8 | Int(byte)) & 0xFFFF
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(letter(buffer >> bits))
            }
        }
        if bits > 0 { out.append(letter(buffer << (5 - bits))) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes (leftover bits at the end dropped, unchecked: a caller that needs
    /// one encoding per value compares the re-encoding), or nil at a character outside the
    /// lowercase alphabet.
    ///
    /// Inlinable, so that a caller in another module gets a copy specialized for its sequence
    /// (a `Substring.UTF8View`): called generically, each byte costs a call through the
    /// sequence's witness table.
    @inlinable
    public static func decode(_ text: some Sequence<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.underestimatedCount * 5 / 8)
        var buffer = 0
        var bits = 0
        for character in text {
            guard let value = value(of: character) else { return nil }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        return out
    }

    /// The letter for the low five bits of `value`: `a`–`z`, then `2`–`7`.
    public static func letter(_ value: Int) -> UInt8 {
        let index = UInt8(truncatingIfNeeded: value & 31)
        return index < 26 ? UInt8(ascii: "a") + index : UInt8(ascii: "2") + (index - 26)
    }

    /// The five-bit value of a letter of the lowercase alphabet; nil for any other byte.
    @inlinable
    public static func value(of letter: UInt8) -> Int? {
        switch letter {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(letter - UInt8(ascii: "a"))
        case UInt8(ascii: "2")...UInt8(ascii: "7"): Int(letter - UInt8(ascii: "2")) + 26
        default: nil
        }
    }
}
