import WharfJSON

/// `{}`: the result of methods that answer only "done", and params of methods that take none.
public struct Empty: ProtocolValue {
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: Empty { Empty() }
}
