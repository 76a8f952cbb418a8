/// Text from the state store made safe to print on a terminal.
///
/// App identities are whatever a client called itself and paths are whatever bytes a file name
/// holds: printed raw, a tab or newline would forge columns and rows of `wharf access list`, and
/// an escape sequence (ESC, or the one-character CSI U+009B) would be obeyed by the terminal —
/// recolouring, moving the cursor, retitling the window. So, byte for byte of the UTF-8:
///
/// - `\` becomes `\\`; tab, newline and carriage return become `\t`, `\n`, `\r`;
/// - every other control character (U+0000–U+001F, DEL, U+0080–U+009F) and every byte that is
///   not part of valid UTF-8 becomes `\xHH`, one per byte (a C1 control is two: `\xC2\x9B`);
/// - the invisible characters that reorder text (U+061C, U+200E, U+200F, U+202A–U+202E,
///   U+2066–U+2069) become `\u{202E}`;
/// - everything else is printed as it is.
///
/// The escaping is reversible — no two different names print alike — which is what lets a
/// person tell apart two names that differ only in such characters. `wharf access list` prints
/// with it, and the terminal picker shows names with it.
public enum TerminalText {
    public static func escape(_ text: String) -> String { escape(bytes: Array(text.utf8)) }

    public static func escape(bytes: [UInt8]) -> String {
        var output = ""
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            guard length > 0 else {
                output += hex(bytes[index])
                index += 1
                continue
            }
            let encoded = bytes[index..<(index + length)]
            var scalar: UInt32 = length == 1 ? UInt32(encoded.first!) : UInt32(encoded.first!) & (0xFF >> (length + 1))
            for byte in encoded.dropFirst() { scalar = scalar << 6 | UInt32(byte & 0x3F) }
            append(Unicode.Scalar(scalar)!, encoded: encoded, to: &output)
            index += length
        }
        return output
    }

    /// The length of the well-formed UTF-8 sequence starting at `index` (RFC 3629: no overlong
    /// forms, no surrogates, nothing above U+10FFFF), or 0 when none starts there.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF4: length = 4; second = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return 0
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<max(length, 2) where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }

    private static func append(_ scalar: Unicode.Scalar, encoded: ArraySlice<UInt8>, to output: inout String) {
        switch scalar.value {
        case 0x5C: output += "\\\\"
        case 0x09: output += "\\t"
        case 0x0A: output += "\\n"
        case 0x0D: output += "\\r"
        case 0x00...0x1F, 0x7F...0x9F:
            for byte in encoded { output += hex(byte) }
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default:
            output.unicodeScalars.append(scalar)
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
