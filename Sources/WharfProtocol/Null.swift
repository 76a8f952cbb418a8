import WharfJSON

/// `null`: `shutdown`'s result.
public struct Null: ProtocolValue {
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public init(json: JSON, path: String) throws(ProtocolError) {
        guard json == .null else { throw ProtocolError("\(path): expected null, got \(json.typeName)") }
    }
    public var json: JSON { .null }
    public static var example: Null { Null() }
}
