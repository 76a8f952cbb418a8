import Glibc
import WharfSystem

/// A terminal's capabilities, read from its compiled terminfo entry (term(5)): the strings
/// that move the cursor, clear a line, dim text, switch to the alternate screen, and those the
/// terminal's keys send. Wharf reads the database itself (both the legacy and the 32-bit
/// format), so nothing is linked or loaded until a dialog is drawn on a terminal.
public struct Terminfo: Sendable {
    /// The entry's names (`xterm-256color|xterm with 256 colors`).
    public var names: String
    var booleans: [Bool]
    var numbers: [Int]
    var strings: [[UInt8]?]

    /// The standard string capabilities Wharf uses, by their index in term(5)'s order.
    public enum Capability: Int, Sendable, CaseIterable {
        case bell = 1
        case clearScreen = 5
        case clearToEndOfLine = 6
        case clearToEndOfScreen = 7
        case cursorAddress = 10
        case cursorInvisible = 13
        case cursorNormal = 16
        case enterBold = 27
        case enterAlternateScreen = 28
        case enterDim = 30
        case enterReverse = 34
        case enterUnderline = 36
        case exitAttributes = 39
        case exitAlternateScreen = 40
        case keyBackspace = 55
        case keyDelete = 59
        case keyDown = 61
        case keyHome = 76
        case keyLeft = 79
        case keyPageDown = 81
        case keyPageUp = 82
        case keyRight = 83
        case keyUp = 87
        case keypadLocal = 88
        case keypadTransmit = 89
        case keyBackTab = 148
        case keyEnd = 164
        case keyEnter = 165
    }

    /// A string capability, nil when the terminal lacks it.
    public subscript(_ capability: Capability) -> [UInt8]? {
        strings.indices.contains(capability.rawValue) ? strings[capability.rawValue] : nil
    }

    /// The `cols` number, when the entry gives one.
    public var columns: Int? { numbers.indices.contains(0) && numbers[0] >= 0 ? numbers[0] : nil }
    /// The `lines` number, when the entry gives one.
    public var lines: Int? { numbers.indices.contains(2) && numbers[2] >= 0 ? numbers[2] : nil }

    /// Reads a compiled entry.
    public init(compiled bytes: [UInt8]) throws(TerminfoError) {
        var reader = Reader(bytes: bytes)
        let magic = try reader.short()
        let numberSize: Int
        switch magic {
        case 0o432: numberSize = 2
        case 0o1036: numberSize = 4
        default: throw .malformed("not a compiled terminfo entry (magic \(magic))")
        }
        let nameSize = try reader.short()
        let booleanCount = try reader.short()
        let numberCount = try reader.short()
        let stringCount = try reader.short()
        let tableSize = try reader.short()
        guard [nameSize, booleanCount, numberCount, stringCount, tableSize].allSatisfy({ $0 >= 0 }) else {
            throw .malformed("negative section size")
        }
        let nameBytes = try reader.take(nameSize)
        names = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        booleans = try reader.take(booleanCount).map { $0 == 1 }
        if (nameSize + booleanCount) % 2 == 1 { _ = try reader.take(1) }
        numbers = []
        numbers.reserveCapacity(numberCount)
        for _ in 0..<numberCount { numbers.append(numberSize == 2 ? try reader.short() : try reader.int32()) }
        var offsets: [Int] = []
        offsets.reserveCapacity(stringCount)
        for _ in 0..<stringCount { offsets.append(try reader.short()) }
        let table = Array(try reader.take(tableSize))
        strings = offsets.map { offset -> [UInt8]? in
            guard offset >= 0, offset < table.count else { return nil }  // -1 absent, -2 cancelled
            let rest = table[offset...]
            return Array(rest.prefix { $0 != 0 })
        }
    }

    /// The entry for `term`, looked up as ncurses does: `$TERMINFO`, `~/.terminfo`, each of
    /// `$TERMINFO_DIRS` (an empty one standing for the system's), then `/etc/terminfo`,
    /// `/lib/terminfo` and `/usr/share/terminfo`; in each, `c/NAME` (the name's first letter)
    /// or `XX/NAME` (its hex code).
    public static func load(term: String, environment: [String: String]) throws(TerminfoError) -> Terminfo {
        let file = try locate(term: term, environment: environment)
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.open(file, O_RDONLY).readToEnd(limit: 1 << 20)
        } catch {
            throw .unreadable(path: file.description, reason: error.reason)
        }
        return try Terminfo(compiled: bytes)
    }

    /// The directories searched for entries, in order.
    public static func searchDirectories(environment: [String: String]) -> [String] {
        let system = ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"]
        var directories: [String] = []
        if let own = environment["TERMINFO"], !own.isEmpty { directories.append(own) }
        if let home = environment["HOME"], !home.isEmpty { directories.append(home + "/.terminfo") }
        if let list = environment["TERMINFO_DIRS"] {
            for entry in list.split(separator: ":", omittingEmptySubsequences: false) {
                if entry.isEmpty { directories += system } else { directories.append(String(entry)) }
            }
        }
        for directory in system where !directories.contains(directory) { directories.append(directory) }
        return directories
    }

    /// The file holding `term`'s entry.
    public static func locate(term: String, environment: [String: String]) throws(TerminfoError) -> FilePath {
        guard let first = term.utf8.first, !term.contains("/"), term != "." && term != ".." else {
            throw .notFound(term: term, searched: [])
        }
        let hex = String(first, radix: 16)
        let directories = searchDirectories(environment: environment)
        for directory in directories {
            for letter in [String(UnicodeScalar(first)), hex.count == 1 ? "0" + hex : hex] {
                guard let path = FilePath(directory + "/" + letter + "/" + term) else { continue }
                if let status = try? FileStatus.of(path), status.kind == .regular { return path }
            }
        }
        throw .notFound(term: term, searched: directories)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int) throws(TerminfoError) -> ArraySlice<UInt8> {
            guard count >= 0, offset + count <= bytes.count else { throw .malformed("truncated at byte \(offset)") }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        /// A little-endian signed 16-bit number.
        mutating func short() throws(TerminfoError) -> Int {
            let two = try take(2)
            return Int(Int16(bitPattern: UInt16(two[two.startIndex]) | UInt16(two[two.startIndex + 1]) << 8))
        }

        mutating func int32() throws(TerminfoError) -> Int {
            let four = try take(4)
            var value: UInt32 = 0
            for (shift, byte) in four.enumerated() { value |= UInt32(byte) << (8 * shift) }
            return Int(Int32(bitPattern: value))
        }
    }
}

public enum TerminfoError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(term: String, searched: [String])
    case unreadable(path: String, reason: String)
    case malformed(String)

    public var description: String {
        switch self {
        case .notFound(let term, let searched):
            "no terminfo entry for TERM=\(term)" + (searched.isEmpty ? "" : " (looked in \(searched.joined(separator: ", ")); install ncurses-term for more)")
        case .unreadable(let path, let reason): "cannot read the terminfo entry \(path): \(reason)"
        case .malformed(let reason): "the terminfo entry is malformed: \(reason)"
        }
    }
}
