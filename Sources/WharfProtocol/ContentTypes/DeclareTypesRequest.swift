import WharfJSON

/// `contentTypes/declare`: the client's own types, all or none.
public struct DeclareTypesRequest: RequestMessage {
    public static let method = "contentTypes/declare"
    public typealias Result = DeclareTypesResult
    public var types: [TypeDeclarationParams]

    public init(types: [TypeDeclarationParams]) { self.types = types }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        types = try reader.objects("types") { reader throws(ProtocolError) in try TypeDeclarationParams(reading: &reader) }
    }

    public var json: JSON { ["types": .array(types.map(\.json))] }
    public static var example: DeclareTypesRequest { DeclareTypesRequest(types: [.example]) }
}
