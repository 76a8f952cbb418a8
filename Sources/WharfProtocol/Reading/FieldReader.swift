import WharfJSON

/// Reads the members of one JSON object into typed fields, every mismatch a ``ProtocolError``
/// naming the field by its path (`options.timeoutMs`, `documents[1].contents`).
///
/// It also notes which members it was asked for: what is left when a message has been read is
/// an unknown field. Unknown fields are not errors (a newer client may send what this server
/// does not know yet), but a misspelt one quietly does nothing, so the server logs each with
/// the closest field it does know (``unknownFields``).
public struct FieldReader {
    public let object: JSONObject
    /// Where this object sits in the message (`""` at the top).
    public let path: String
    /// Every key a field was read (or looked for) under, in the order asked, repeats and all.
    /// An array, not a set: a message has a handful of fields, and appending a literal is free
    /// where a set hashed every key and grew four times for each request.
    private var known: [String] = []
    /// Unknown fields found so far, at this level and in nested readers.
    private var unknown: [UnknownField] = []
    /// When set, every field asked for is noted in it with its kind (nested readers share it):
    /// how the test suite compares each message's fields with the schema's, field by field.
    public var log: FieldLog?

    /// Params as sent: absent, `null` and `[]` read as an empty object (by-position params
    /// with no positions are no params); anything else must be an object.
    public init(params: JSON?) throws(ProtocolError) {
        switch params {
        case nil, .null?: self.init(object: JSONObject(), path: "")
        case .array(let array)? where array.isEmpty: self.init(object: JSONObject(), path: "")
        case .object(let object)?: self.init(object: object, path: "")
        case let other?: throw ProtocolError("params must be an object, got \(other.typeName)")
        }
    }

    /// A JSON value that must be an object (a result, a nested value), at `path`.
    public init(_ json: JSON, path: String) throws(ProtocolError) {
        guard case .object(let object) = json else {
            throw ProtocolError("\(path.isEmpty ? "expected" : "\(path): expected") an object, got \(json.typeName)")
        }
        self.init(object: object, path: path)
    }

    public init(object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    /// The full name of a member, for messages.
    public func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The fields sent that nothing read, each with the closest known field at its level.
    public var unknownFields: [UnknownField] {
        // Nothing is allocated when every field was asked for, as in nearly every message.
        var here: [UnknownField] = []
        for member in object where !known.contains(member.key) {
            here.append(UnknownField(path: name(member.key), suggestion: UnknownField.closest(to: member.key, among: Set(known)).map(name)))
        }
        return here.isEmpty ? unknown : here + unknown
    }

    // MARK: Presence

    /// Whether the member is there and not `null`.
    public mutating func has(_ key: String) -> Bool {
        look(key, .presence) != nil
    }

    /// The member as JSON, nil when absent or `null`.
    public mutating func raw(_ key: String) -> JSON? {
        look(key, .any)
    }

    /// The member as JSON, whatever its type; absent or `null` is an error.
    public mutating func value(_ key: String) throws(ProtocolError) -> JSON {
        let value = look(key, .any)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    private mutating func look(_ key: String, _ kind: FieldKind, range: ClosedRange<Int64>? = nil) -> JSON? {
        log?.note(path: path, key: key, kind: kind, range: range)
        // Room for a message's fields at once, rather than growing four times.
        if known.isEmpty { known.reserveCapacity(16) }
        known.append(key)
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    public func missing(_ key: String) -> ProtocolError { ProtocolError("\(name(key)) is required") }

    private func mismatch(_ key: String, _ expected: String, _ value: JSON) -> ProtocolError {
        ProtocolError("\(name(key)): expected \(expected), got \(value.typeName)")
    }

    // MARK: Scalars

    public mutating func string(_ key: String) throws(ProtocolError) -> String {
        let value = try optionalString(key)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    public mutating func optionalString(_ key: String) throws(ProtocolError) -> String? {
        try optionalString(key, kind: .string)
    }

    private mutating func optionalString(_ key: String, kind: FieldKind) throws(ProtocolError) -> String? {
        guard let value = look(key, kind) else { return nil }
        guard case .string(let string) = value else { throw mismatch(key, "a string", value) }
        return string
    }

    /// A string that names something kept (an app, a remembered folder, a presentation): never
    /// one containing U+0000, which the spec makes invalid in every identifier (and which a C
    /// string, SQLite's text among them, would cut short, merging two names into one).
    public mutating func identifier(_ key: String) throws(ProtocolError) -> String {
        let value = try optionalIdentifier(key)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    public mutating func optionalIdentifier(_ key: String) throws(ProtocolError) -> String? {
        guard let value = try optionalString(key, kind: .identifier) else { return nil }
        guard !value.utf8.contains(0) else { throw ProtocolError("\(name(key)): must not contain U+0000") }
        return value
    }

    /// A member that must be there but may be `null` (`"parent": null`): nil for `null`.
    public mutating func nullableString(_ key: String) throws(ProtocolError) -> String? {
        let value = try optionalString(key)
        log?.require(path: path, key: key)
        guard value != nil || object[key] != nil else { throw missing(key) }
        return value
    }

    /// A member that must be there but may be `null`: nil for `null`.
    public mutating func nullableInt(_ key: String) throws(ProtocolError) -> Int64? {
        let value = try optionalInt(key)
        log?.require(path: path, key: key)
        guard value != nil || object[key] != nil else { throw missing(key) }
        return value
    }

    public mutating func bool(_ key: String) throws(ProtocolError) -> Bool {
        let value = try optionalBool(key)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    public mutating func bool(_ key: String, default fallback: Bool) throws(ProtocolError) -> Bool {
        try optionalBool(key) ?? fallback
    }

    public mutating func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let value = look(key, .bool) else { return nil }
        guard case .bool(let bool) = value else { throw mismatch(key, "a boolean", value) }
        return bool
    }

    public mutating func int(_ key: String, in range: ClosedRange<Int64>? = nil) throws(ProtocolError) -> Int64 {
        let value = try optionalInt(key, in: range)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    /// An integer; a number with a zero fraction (`5.0`) counts, as JSON does not tell them apart.
    public mutating func optionalInt(_ key: String, in range: ClosedRange<Int64>? = nil) throws(ProtocolError) -> Int64? {
        guard let value = look(key, .integer, range: range) else { return nil }
        let number: Int64
        switch value {
        case .int(let int): number = int
        case .double(let double) where double.rounded() == double && abs(double) < 9.0e18: number = Int64(double)
        default: throw mismatch(key, "an integer", value)
        }
        if let range, !range.contains(number) {
            throw ProtocolError("\(name(key)): must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }

    // MARK: Arrays and objects

    public mutating func strings(_ key: String) throws(ProtocolError) -> [String] {
        let values = try optionalStrings(key)
        log?.require(path: path, key: key)
        guard let values else { throw missing(key) }
        return values
    }

    public mutating func optionalStrings(_ key: String) throws(ProtocolError) -> [String]? {
        guard let value = look(key, .strings) else { return nil }
        guard case .array(let array) = value else { throw mismatch(key, "an array of strings", value) }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard case .string(let string) = element else {
                throw ProtocolError("\(name(key))[\(index)]: expected a string, got \(element.typeName)")
            }
            strings.append(string)
        }
        return strings
    }

    /// An object of strings by any name (`{"portal": "no session bus"}`).
    public mutating func optionalStringMap(_ key: String) throws(ProtocolError) -> [String: String]? {
        guard let value = look(key, .stringMap) else { return nil }
        guard case .object(let members) = value else { throw mismatch(key, "an object of strings", value) }
        var result: [String: String] = [:]
        for member in members {
            guard case .string(let string) = member.value else {
                throw ProtocolError("\(name(key)).\(member.key): expected a string, got \(member.value.typeName)")
            }
            result[member.key] = string
        }
        return result
    }

    /// A nested object read by `body`; its unknown fields join this reader's.
    public mutating func optionalObject<T>(
        _ key: String, _ body: (inout FieldReader) throws(ProtocolError) -> T
    ) throws(ProtocolError) -> T? {
        guard let value = look(key, .object) else { return nil }
        var nested = try FieldReader(value, path: name(key))
        nested.log = log
        let result = try body(&nested)
        unknown += nested.unknownFields
        return result
    }

    public mutating func object<T>(
        _ key: String, _ body: (inout FieldReader) throws(ProtocolError) -> T
    ) throws(ProtocolError) -> T {
        let value = try optionalObject(key, body)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    /// An array of objects, each read by `body`.
    public mutating func optionalObjects<T>(
        _ key: String, _ body: (inout FieldReader) throws(ProtocolError) -> T
    ) throws(ProtocolError) -> [T]? {
        guard let value = look(key, .objects) else { return nil }
        guard case .array(let array) = value else { throw mismatch(key, "an array of objects", value) }
        var result: [T] = []
        for (index, element) in array.enumerated() {
            var nested = try FieldReader(element, path: "\(name(key))[\(index)]")
            nested.log = log
            result.append(try body(&nested))
            unknown += nested.unknownFields
        }
        return result
    }

    public mutating func objects<T>(
        _ key: String, _ body: (inout FieldReader) throws(ProtocolError) -> T
    ) throws(ProtocolError) -> [T] {
        let value = try optionalObjects(key, body)
        log?.require(path: path, key: key)
        guard let value else { throw missing(key) }
        return value
    }

    /// Exactly one of `keys` must be present; answers which.
    public mutating func oneOf(_ keys: [String], what: String) throws(ProtocolError) -> String {
        let present = keys.filter { has($0) }
        guard present.count == 1 else {
            let list = keys.dropLast().joined(separator: ", ") + " and " + keys.last!
            throw ProtocolError("\(path.isEmpty ? what : "\(path): \(what)") takes exactly one of \(list)")
        }
        return present[0]
    }
}
