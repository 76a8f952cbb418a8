/// Finding ASCII markers in text, by its UTF-8 bytes.
///
/// The standard library's `contains(_:)` and `firstRange(of:)` for a string argument live in
/// `_StringProcessing`, and one use of them links that module and the regex parser into the
/// binary: 2 MB more of it, and 15 more pages that every start-up copies to relocate. Wharf
/// only looks for ASCII markers (`<comment>`, `portal`, `utf-8`), so it compares bytes. That
/// differs from a search by Characters only where a marker's last letter is followed by a
/// combining mark (`cafe` is found in `cafe\u{301}` here, and is not as Characters), which
/// none of these places cares about. `make release` checks that the regex modules stay out.
extension StringProtocol {
    /// The first occurrence of `marker`'s bytes, or nil. The bounds are those of the marker's
    /// first and last bytes, so an ASCII marker's range can slice the text.
    @inlinable
    public func firstRange(ofASCII marker: String) -> Range<String.Index>? {
        let needle = Array(marker.utf8)
        let bytes = utf8
        var start = bytes.startIndex
        while true {
            if bytes[start...].starts(with: needle) {
                return start ..< bytes.index(start, offsetBy: needle.count)
            }
            guard start != bytes.endIndex else { return nil }
            start = bytes.index(after: start)
        }
    }

    /// Whether `marker`'s bytes occur in the text.
    @inlinable
    public func contains(ascii marker: String) -> Bool { firstRange(ofASCII: marker) != nil }
}

/// `byte` lowercased if it is an ASCII capital letter, any other byte as it is: names that
/// compare without case (identifiers, globs, URL schemes) do so in ASCII only, as GLib and
/// shared-mime-info do, and never by Unicode rules.
@inlinable
public func lowercaseASCII(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte + 32 : byte
}

extension StringProtocol {
    /// Whether the two have the same bytes but for the case of ASCII letters.
    @inlinable
    public func equalsIgnoringASCIICase<Other: StringProtocol>(_ other: Other) -> Bool {
        utf8.elementsEqual(other.utf8) { lowercaseASCII($0) == lowercaseASCII($1) }
    }
}
