// Encoding, in Swift. jansson stays the one parser; writing JSON needs no parser, and going
// through jansson for it meant building a jansson tree of every message (an allocation per
// value) and a Swift callback per token: about a fifth of what a `ping` cost the server
// (bench/notes/30-where-the-time-goes.md). The output is the text jansson wrote with
// `JSON_COMPACT | JSON_ENCODE_ANY`, but for doubles, which are written shortest-first.

extension JSON {
    /// Serialises to compact JSON text, appending to `output`: no whitespace, object members in
    /// their order, strings as UTF-8 with `"`, `\` and control characters escaped (U+0000
    /// included, as `\u0000`). Doubles are written as the shortest text that reads back as the
    /// same double, always with a `.` or an exponent (so they read back as doubles, not
    /// integers); non-finite doubles, which JSON cannot express, as `null`.
    public func serialize(into output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: Self.nullText)
        case .bool(let value):
            output.append(contentsOf: value ? Self.trueText : Self.falseText)
        case .int(let value):
            Self.appendDecimal(value, to: &output)
        case .double(let value):
            Self.appendDouble(value, to: &output)
        case .string(let value):
            Self.appendString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.serialize(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.serialize(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Serialises to compact JSON text.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        serialize(into: &output)
        return output
    }

    /// Compact JSON text as a `String`.
    public var jsonText: String { String(decoding: serialized(), as: UTF8.self) }

    private static let nullText: [UInt8] = Array("null".utf8)
    private static let trueText: [UInt8] = Array("true".utf8)
    private static let falseText: [UInt8] = Array("false".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The decimal digits, most significant first (the magnitude as unsigned, so `Int64.min`
    /// has one too).
    private static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    private static func appendDouble(_ value: Double, to output: inout [UInt8]) {
        guard value.isFinite else {
            output.append(contentsOf: nullText)
            return
        }
        // Swift's description is the shortest text that reads back as the same value, with
        // a `.` or an exponent, in JSON's syntax ("1.0", "0.1", "1e-05", "1e+16", "-0.0").
        output.append(contentsOf: value.description.utf8)
    }

    /// A JSON string: runs of bytes that need no escape are copied whole.
    private static func appendString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                runStart = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                               hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
                }
            }
            if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        output.append(UInt8(ascii: "\""))
    }
}
