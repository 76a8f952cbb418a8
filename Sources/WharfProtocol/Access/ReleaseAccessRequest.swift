import WharfJSON

/// `releaseAccess`: end one lease.
public struct ReleaseAccessRequest: RequestMessage {
    public static let method = "releaseAccess"
    public typealias Result = Empty
    public var accessId: String
    public init(accessId: String) { self.accessId = accessId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { accessId = try reader.string("accessId") }
    public var json: JSON { ["accessId": .string(accessId)] }
    public static var example: ReleaseAccessRequest { ReleaseAccessRequest(accessId: "acc_abc") }
}
