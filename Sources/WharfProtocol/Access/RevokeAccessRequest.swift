import WharfJSON

/// `revokeAccess`: the app's grants for a URL, or one bookmark, go.
public struct RevokeAccessRequest: RequestMessage {
    public static let method = "revokeAccess"
    public typealias Result = RevokeAccessResult
    public var target: AccessTarget

    public init(target: AccessTarget) { self.target = target }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { target = try AccessTarget(reading: &reader, method: Self.method) }
    public var json: JSON { target.json }
    public static var example: RevokeAccessRequest { RevokeAccessRequest(target: .bookmark("wb1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")) }
}
