import WharfJSON

/// A value of the protocol: read from JSON (naming the field of any mismatch) and written back
/// as the specification says. Every params, result and nested value is one of these, so a
/// message's shape lives in one place; `example` is a typical value, which the test suite
/// checks against protocol/wharf.schema.json and reads back.
public protocol ProtocolValue: Sendable, Equatable {
    init(reading reader: inout FieldReader) throws(ProtocolError)
    /// Reads a whole value (a result, for instance); `path` names it in messages. Objects by
    /// default, through ``init(reading:)``.
    init(json: JSON, path: String) throws(ProtocolError)
    var json: JSON { get }
    static var example: Self { get }
}

/// Who sends a message.
public enum Direction: String, Sendable {
    case clientToServer, serverToClient
}

/// A request: its method, its params (the conforming type) and its result.
public protocol RequestMessage: ProtocolValue {
    associatedtype Result: ProtocolValue
    static var method: String { get }
    static var direction: Direction { get }
}

/// A notification: its method and params (the conforming type). No answer, ever.
public protocol NotificationMessage: ProtocolValue {
    static var method: String { get }
    static var direction: Direction { get }
}

extension RequestMessage {
    public static var direction: Direction { .clientToServer }

    /// Reads params as they arrived, with the unknown fields found.
    public static func parse(_ params: JSON?) throws(ProtocolError) -> (Self, [UnknownField]) {
        var reader = try FieldReader(params: params)
        let message = try Self(reading: &reader)
        return (message, reader.unknownFields)
    }
}

extension NotificationMessage {
    public static var direction: Direction { .clientToServer }

    public static func parse(_ params: JSON?) throws(ProtocolError) -> (Self, [UnknownField]) {
        var reader = try FieldReader(params: params)
        let message = try Self(reading: &reader)
        return (message, reader.unknownFields)
    }
}

extension ProtocolValue {
    /// A result, read as its type says.
    public init(json: JSON) throws(ProtocolError) { try self.init(json: json, path: "result") }

    public init(json: JSON, path: String) throws(ProtocolError) {
        var reader = try FieldReader(json, path: path)
        try self.init(reading: &reader)
    }
}

/// Building objects member by member, leaving out absent optionals.
extension JSONObject {
    mutating func set(_ key: String, _ value: String?) {
        if let value { self[key] = .string(value) }
    }

    mutating func set(_ key: String, _ value: Bool?) {
        if let value { self[key] = .bool(value) }
    }

    mutating func set(_ key: String, _ value: Int64?) {
        if let value { self[key] = .int(value) }
    }

    mutating func set(_ key: String, _ values: [String]?) {
        if let values { self[key] = .array(values.map(JSON.string)) }
    }

    mutating func set(_ key: String, _ value: (some ProtocolValue)?) {
        if let value { self[key] = value.json }
    }

    mutating func set(_ key: String, _ values: [some ProtocolValue]?) {
        if let values { self[key] = .array(values.map(\.json)) }
    }
}

/// A string or `null`, as several fields of `presenter/show` are.
func nullable(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
