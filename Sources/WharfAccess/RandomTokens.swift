import WharfSystem

/// The strings the store hands out: bookmark tokens and access ids.
///
/// A bookmark is an opaque handle, not a description: it carries 160 random bits from the
/// kernel (`getentropy`) that index a row kept server-side, so there is nothing in it to edit
/// into another path. A final check character (Luhn mod 32 over the base32 body) catches every
/// single-character edit before the database is asked, and keeps a typo from ever reaching a
/// neighbouring row by chance.
enum RandomTokens {
    static let bookmarkPrefix = "wb1_"
    static let accessPrefix = "acc_"
    /// 20 bytes = 160 bits = 32 base32 characters.
    static let bookmarkRandomBytes = 20
    static let bookmarkLength = bookmarkPrefix.count + 32 + 1

    /// A fresh bookmark token: `wb1_` + 32 base32 characters + 1 check character.
    static func bookmark() throws(SystemError) -> String {
        let body = Base32.encode(try SystemRandom.bytes(bookmarkRandomBytes))
        return bookmarkPrefix + body + String(UnicodeScalar(checkCharacter(for: Array(body.utf8))!))
    }

    /// Whether `token` has the shape of a bookmark and its check character matches. A false
    /// answer means it was never issued; a true one still has to be found in the store.
    static func isWellFormedBookmark(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        guard bytes.count == bookmarkLength, token.hasPrefix(bookmarkPrefix) else { return false }
        let body = bytes[bookmarkPrefix.utf8.count ..< bytes.count - 1]
        guard let expected = checkCharacter(for: Array(body)) else { return false }
        return bytes.last == expected
    }

    /// A fresh access id: `acc_` + 128 random bits in base32.
    static func accessId() throws(SystemError) -> String {
        accessPrefix + Base32.encode(try SystemRandom.bytes(16))
    }

    /// A per-process store instance id (128 random bits in base32).
    static func instanceId() throws(SystemError) -> String {
        Base32.encode(try SystemRandom.bytes(16))
    }

    /// Luhn mod 32: every character's value is weighted 2, 1, 2, … from the right, a doubled
    /// value is folded back (quotient + remainder by 32, a bijection on 0…31), and the check
    /// value brings the sum to a multiple of 32. Because each weighting is a bijection, any one
    /// substituted character changes the sum, so no single edit keeps the check valid.
    /// Nil when `body` holds a character outside the alphabet.
    static func checkCharacter(for body: [UInt8]) -> UInt8? {
        var sum = 0
        var factor = 2
        for byte in body.reversed() {
            guard let value = Base32.value(of: byte) else { return nil }
            let weighted = value * factor
            sum += weighted / 32 + weighted % 32
            factor = factor == 2 ? 1 : 2
        }
        return Base32.letter(32 - sum % 32)
    }
}
