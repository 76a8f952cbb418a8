import WharfJSON

/// `readFile`: bytes through a lease.
public struct ReadFileRequest: RequestMessage {
    public static let method = "readFile"
    public typealias Result = ReadFileResult
    public var accessId: String
    public var offset: Int64
    public var length: Int64?

    /// The most one call moves (the server's `capabilities.access.maxTransferBytes`).
    public static let maximumLength: Int64 = 16 << 20

    public init(accessId: String, offset: Int64 = 0, length: Int64? = nil) {
        self.accessId = accessId
        self.offset = offset
        self.length = length
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        accessId = try reader.string("accessId")
        offset = try reader.optionalInt("offset", in: 0...Int64.max) ?? 0
        length = try reader.optionalInt("length", in: 0...Self.maximumLength)
    }

    public var json: JSON {
        var object: JSONObject = ["accessId": .string(accessId), "offset": .int(offset)]
        object.set("length", length)
        return .object(object)
    }

    public static var example: ReadFileRequest { ReadFileRequest(accessId: "acc_abc", offset: 0, length: 4096) }
}
