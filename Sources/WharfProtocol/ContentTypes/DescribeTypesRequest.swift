import WharfJSON

/// `contentTypes/describe`: what the server knows about each identifier.
public struct DescribeTypesRequest: RequestMessage {
    public static let method = "contentTypes/describe"
    public typealias Result = DescribeTypesResult
    public var identifiers: [String]

    public init(identifiers: [String]) { self.identifiers = identifiers }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { identifiers = try reader.strings("identifiers") }
    public var json: JSON { ["identifiers": .array(identifiers.map(JSON.string))] }
    public static var example: DescribeTypesRequest { DescribeTypesRequest(identifiers: ["public.png", "com.nope"]) }
}
