import WharfJSON

public struct DescribeTypesResult: ProtocolValue {
    /// One per identifier asked about, in order.
    public var types: [Item]

    public enum Item: Sendable, Equatable {
        case type(TypeDescriptionInfo)
        case unknown(identifier: String, error: ItemError)
    }

    public init(types: [Item]) { self.types = types }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        types = try reader.objects("types") { reader throws(ProtocolError) in
            if reader.has("error") {
                return .unknown(identifier: try reader.string("identifier"),
                                error: try reader.object("error") { reader throws(ProtocolError) in try ItemError(reading: &reader) })
            }
            return .type(try TypeDescriptionInfo(reading: &reader))
        }
    }

    public var json: JSON {
        ["types": .array(types.map { item in
            switch item {
            case .type(let description): return description.json
            case .unknown(let identifier, let error): return ["identifier": .string(identifier), "error": error.json]
            }
        })]
    }

    public static var example: DescribeTypesResult {
        DescribeTypesResult(types: [.type(.example), .unknown(identifier: "com.nope", error: .example)])
    }
}
