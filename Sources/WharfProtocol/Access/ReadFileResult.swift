import WharfJSON

public struct ReadFileResult: ProtocolValue {
    public var base64: String
    public var eof: Bool
    public init(base64: String, eof: Bool) {
        self.base64 = base64
        self.eof = eof
    }
    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        base64 = try reader.string("base64")
        eof = try reader.bool("eof")
    }
    public var json: JSON { ["base64": .string(base64), "eof": .bool(eof)] }
    public static var example: ReadFileResult { ReadFileResult(base64: "aGVsbG8=", eof: true) }
}
