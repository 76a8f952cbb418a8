/// Command-line arguments as text that keeps their bytes.
///
/// An argument is bytes, and a path given on the command line need not be UTF-8; but a parser
/// is far easier to read over `String`s. So each argument becomes a `String` that holds every
/// byte: valid UTF-8 stays what it is, and each byte that is not (or that is part of a
/// character in the escape range below) becomes one code point U+10FF00 + byte, the last 256
/// of Unicode's private use plane 16, which no file name is likely to hold and whose own bytes
/// are escaped the same way, so that ``bytes(_:)`` turns any such text back into exactly the
/// argument it came from. (Python's `surrogateescape` does the same with lone surrogates, which
/// a Swift `String` cannot hold.)
///
/// Options and words compare as text; a path is made from ``bytes(_:)``, never from the text's
/// UTF-8.
public enum ArgumentText {
    /// The first of the 256 code points that stand for single bytes.
    private static let escapeBase: UInt32 = 0x10_FF00

    /// The text for one argument's bytes.
    public static func text(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeOne(bytes, at: index), scalar.value < escapeBase {
                scalars.append(scalar)
                index += length
            } else {
                // Not UTF-8 here, or a character of the escape range itself: one escape per byte
                // (for an escape-range character, each of its four bytes).
                let length = decodeOne(bytes, at: index)?.length ?? 1
                for byte in bytes[index..<index + length] { scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!) }
                index += length
            }
        }
        return String(scalars)
    }

    /// The bytes `text` stands for: the inverse of ``text(_:)``.
    public static func bytes(_ text: some StringProtocol) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value >= escapeBase {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes += String(scalar).utf8
            }
        }
        return bytes
    }

    /// The scalar that starts at `index` and how many bytes it takes, when they are well-formed
    /// UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
    private static func decodeOne(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, length: Int)? {
        var iterator = bytes[index...].makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
        return (scalar, String(scalar).utf8.count)
    }
}
