import WharfJSON

/// `contentTypes/filters`: how a file view should filter for these types.
public struct FiltersRequest: RequestMessage {
    public static let method = "contentTypes/filters"
    public typealias Result = FiltersResult
    public var identifiers: [String]

    public init(identifiers: [String]) { self.identifiers = identifiers }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { identifiers = try reader.strings("identifiers") }
    public var json: JSON { ["identifiers": .array(identifiers.map(JSON.string))] }
    public static var example: FiltersRequest { FiltersRequest(identifiers: ["public.image"]) }
}
