import WharfJSON

/// `contentTypes/conforms`.
public struct ConformsRequest: RequestMessage {
    public static let method = "contentTypes/conforms"
    public typealias Result = ConformsResult
    public var identifier: String
    public var to: String

    public init(identifier: String, to: String) {
        self.identifier = identifier
        self.to = to
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        identifier = try reader.string("identifier")
        to = try reader.string("to")
    }

    public var json: JSON { ["identifier": .string(identifier), "to": .string(to)] }
    public static var example: ConformsRequest { ConformsRequest(identifier: "public.png", to: "public.image") }
}
