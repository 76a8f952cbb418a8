import WharfJSON

public struct RevokeAccessResult: ProtocolValue {
    public var revoked: Int64
    public init(revoked: Int64) { self.revoked = revoked }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { revoked = try reader.int("revoked") }
    public var json: JSON { ["revoked": .int(revoked)] }
    public static var example: RevokeAccessResult { RevokeAccessResult(revoked: 1) }
}
