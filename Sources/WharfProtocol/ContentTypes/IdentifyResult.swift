import WharfJSON

public struct IdentifyResult: ProtocolValue {
    public var results: [Item]

    public enum Item: Sendable, Equatable {
        case identified(IdentificationInfo)
        case failed(path: String, error: ItemError)
    }

    public init(results: [Item]) { self.results = results }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        results = try reader.objects("results") { reader throws(ProtocolError) in
            if reader.has("error") {
                return .failed(path: try reader.string("path"),
                               error: try reader.object("error") { reader throws(ProtocolError) in try ItemError(reading: &reader) })
            }
            return .identified(try IdentificationInfo(reading: &reader))
        }
    }

    public var json: JSON {
        ["results": .array(results.map { item in
            switch item {
            case .identified(let found): return found.json
            case .failed(let path, let error): return ["path": .string(path), "error": error.json]
            }
        })]
    }

    public static var example: IdentifyResult {
        IdentifyResult(results: [.identified(.example), .failed(path: "/home/me/missing", error: .example)])
    }
}
