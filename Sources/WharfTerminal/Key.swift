/// A key a person pressed, decoded from what the terminal sent.
public enum Key: Sendable, Equatable {
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, escape, tab, backTab, backspace, delete
    /// A control character other than those above: `control(0x03)` is Ctrl-C.
    case control(UInt8)
    /// One printable character, as its UTF-8 bytes.
    case character([UInt8])
    /// A sequence the terminal sent that names no key Wharf knows (ignored).
    case unknown([UInt8])

    /// The character `c` when this is that ASCII key.
    public func isCharacter(_ c: Character) -> Bool {
        if case .character(let bytes) = self { return bytes == Array(String(c).utf8) }
        return false
    }
}

/// Turns the bytes a terminal sends into keys. The special keys are those terminfo says the
/// terminal sends (`kcuu1`, `khome`, …, in the keypad mode `smkx` selects); other escape
/// sequences (CSI and SS3) are recognised only to be skipped whole. A lone Escape is told from
/// the start of a sequence by time: the caller asks ``flush()`` when nothing more came.
public struct KeyDecoder: Sendable {
    private var table: [(bytes: [UInt8], key: Key)]
    private var pending: [UInt8] = []

    public init(terminfo: Terminfo) {
        let named: [(Terminfo.Capability, Key)] = [
            (.keyUp, .up), (.keyDown, .down), (.keyLeft, .left), (.keyRight, .right),
            (.keyHome, .home), (.keyEnd, .end), (.keyPageUp, .pageUp), (.keyPageDown, .pageDown),
            (.keyBackspace, .backspace), (.keyDelete, .delete), (.keyBackTab, .backTab), (.keyEnter, .enter),
        ]
        table = named.compactMap { capability, key in
            guard let bytes = terminfo[capability], !bytes.isEmpty else { return nil }
            return (bytes, key)
        }
        // Longest first: a key whose bytes begin another's must not shadow it.
        table.sort { $0.bytes.count > $1.bytes.count }
    }

    /// Whether bytes are waiting for the rest of a sequence (then call ``flush()`` if nothing
    /// more comes soon).
    public var isWaiting: Bool { !pending.isEmpty }

    /// The keys `bytes` complete, with what came before them.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while let (key, length) = decode(pending, final: false) {
            keys.append(key)
            pending.removeFirst(length)
        }
        return keys
    }

    /// Nothing more came: what is waiting is taken as it is (a lone Escape is Escape).
    public mutating func flush() -> [Key] {
        var keys: [Key] = []
        while !pending.isEmpty, let (key, length) = decode(pending, final: true) {
            keys.append(key)
            pending.removeFirst(length)
        }
        pending = []
        return keys
    }

    /// The first key in `bytes` and how many bytes it took; nil when `bytes` may be the start
    /// of a longer key (unless `final`).
    private func decode(_ bytes: [UInt8], final: Bool) -> (Key, Int)? {
        guard let first = bytes.first else { return nil }
        for (sequence, key) in table where bytes.starts(with: sequence) { return (key, sequence.count) }
        if !final, table.contains(where: { $0.bytes.count > bytes.count && $0.bytes.starts(with: bytes) }) { return nil }
        switch first {
        case 0x1B:
            guard bytes.count > 1 else { return final ? (.escape, 1) : nil }
            if let length = Self.escapeSequenceLength(bytes) {
                return (.unknown(Array(bytes[..<length])), length)
            }
            if bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") {
                return final ? (.escape, 1) : nil   // an unfinished sequence
            }
            return (.escape, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x00...0x1F: return (.control(first), 1)
        case 0x80...0xFF:
            let length: Int
            switch first {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return (.unknown([first]), 1)   // not a UTF-8 lead byte
            }
            if bytes.count < length { return final ? (.unknown(bytes), bytes.count) : nil }
            let sequence = Array(bytes[..<length])
            guard String(validating: sequence, as: UTF8.self) != nil else { return (.unknown([first]), 1) }
            return (.character(sequence), length)
        default: return (.character([first]), 1)
        }
    }

    /// The length of a complete CSI (`ESC [` parameters, intermediates, a final byte) or SS3
    /// (`ESC O` and one byte) sequence at the start of `bytes`; nil when there is none yet.
    private static func escapeSequenceLength(_ bytes: [UInt8]) -> Int? {
        if bytes[1] == UInt8(ascii: "O") { return bytes.count >= 3 ? 3 : nil }
        guard bytes[1] == UInt8(ascii: "[") else { return nil }
        var index = 2
        while index < bytes.count {
            if (0x40...0x7E).contains(bytes[index]) { return index + 1 }
            guard (0x20...0x3F).contains(bytes[index]) else { return index }
            index += 1
        }
        return nil
    }
}
