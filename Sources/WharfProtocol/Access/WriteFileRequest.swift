import WharfJSON

/// `writeFile`: bytes through a read-write lease.
public struct WriteFileRequest: RequestMessage {
    public static let method = "writeFile"
    public typealias Result = WriteFileResult
    public var accessId: String
    public var base64: String
    public var offset: Int64
    public var truncate: Bool

    public init(accessId: String, base64: String, offset: Int64 = 0, truncate: Bool = false) {
        self.accessId = accessId
        self.base64 = base64
        self.offset = offset
        self.truncate = truncate
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        accessId = try reader.string("accessId")
        base64 = try reader.string("base64")
        offset = try reader.optionalInt("offset", in: 0...Int64.max) ?? 0
        truncate = try reader.bool("truncate", default: false)
    }

    public var json: JSON {
        ["accessId": .string(accessId), "base64": .string(base64), "offset": .int(offset), "truncate": .bool(truncate)]
    }

    public static var example: WriteFileRequest { WriteFileRequest(accessId: "acc_abc", base64: "aGVsbG8=", truncate: true) }
}
