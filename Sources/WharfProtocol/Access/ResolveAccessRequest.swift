import WharfJSON

/// `resolveAccess`: start access to a granted URL or a bookmark (a lease to release once).
public struct ResolveAccessRequest: RequestMessage {
    public static let method = "resolveAccess"
    public typealias Result = LeaseInfo
    public var target: AccessTarget

    public init(target: AccessTarget) { self.target = target }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { target = try AccessTarget(reading: &reader, method: Self.method) }
    public var json: JSON { target.json }
    public static var example: ResolveAccessRequest { ResolveAccessRequest(target: .url("file:///home/me/a.png")) }
}
