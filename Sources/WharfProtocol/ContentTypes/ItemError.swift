import WharfJSON

/// Why one item of a list-valued request failed (the rest still succeed).
public struct ItemError: ProtocolValue {
    public var code: Int64
    public var message: String

    public init(code: Int64, message: String) {
        self.code = code
        self.message = message
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        code = try reader.int("code")
        message = try reader.string("message")
        // The schema lets an error carry `data`, as a JSON-RPC error does; this server sends
        // none, and a reader takes one without a word.
        _ = reader.raw("data")
    }

    public var json: JSON { ["code": .int(code), "message": .string(message)] }
    public static var example: ItemError { ItemError(code: WharfErrorCode.fileOperationFailed.rawValue, message: "no such file") }
}
