/// Every field a ``FieldReader`` was asked for, with what it was asked for as: the fields of a
/// message as its reader sees them. The test suite reads each message's example with a log and
/// compares what it finds with protocol/wharf.schema.json, field by field, so the reader is
/// the one list of a message's fields and the schema cannot drift from it unnoticed.
public final class FieldLog {
    /// One field: where it sits (`options`, `documents[0]`; `""` at the top), its name, and how
    /// it was read.
    public struct Entry: Sendable, Equatable {
        public var path: String
        public var key: String
        public var kind: FieldKind
        /// Read with an accessor that fails when the field is absent.
        public var isRequired: Bool
        /// The integers an `int` accessor allows, if it said.
        public var range: ClosedRange<Int64>?
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    func note(path: String, key: String, kind: FieldKind, range: ClosedRange<Int64>?) {
        // A field asked first for its presence (`oneOf`) and then for its value is its value.
        if let index = entries.firstIndex(where: { $0.path == path && $0.key == key }) {
            if entries[index].kind == .presence || entries[index].kind == .any { entries[index].kind = kind }
            if range != nil { entries[index].range = range }
            return
        }
        entries.append(Entry(path: path, key: key, kind: kind, isRequired: false, range: range))
    }

    func require(path: String, key: String) {
        if let index = entries.lastIndex(where: { $0.path == path && $0.key == key }) { entries[index].isRequired = true }
    }
}

/// What a field was read as.
public enum FieldKind: String, Sendable {
    /// Only whether it is there (one of several alternatives, `FieldReader.oneOf`).
    case presence
    /// Any JSON value, read as it stands.
    case any
    case string
    /// A string without U+0000 (a name kept in the store).
    case identifier
    case bool
    case integer
    case strings
    case object
    case objects
    /// An object of strings by any name (`unavailablePresenters`).
    case stringMap
}
