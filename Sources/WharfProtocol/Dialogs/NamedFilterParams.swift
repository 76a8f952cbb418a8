import WharfJSON

/// One of `options.filters`: a named filter the person can select, and the predicate a pick
/// must match while it is selected.
public struct NamedFilterParams: ProtocolValue {
    public var name: String
    public var predicate: URLPredicateParams

    public init(name: String, predicate: URLPredicateParams) {
        self.name = name
        self.predicate = predicate
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        name = try reader.string("name")
        guard let raw = reader.raw("predicate") else { throw reader.missing("predicate") }
        predicate = try URLPredicateParams(raw, path: reader.name("predicate"))
    }

    public var json: JSON { ["name": .string(name), "predicate": predicate.json] }

    public static var example: NamedFilterParams { NamedFilterParams(name: "Images", predicate: .conformsTo("public.image")) }
}
