import WharfJSON

/// The answer of both tag lookups: an identifier, or `null` for a malformed tag.
public struct TypeLookupResult: ProtocolValue {
    public var identifier: String?
    public init(identifier: String?) { self.identifier = identifier }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { identifier = try reader.nullableString("identifier") }
    public var json: JSON { ["identifier": nullable(identifier)] }
    public static var example: TypeLookupResult { TypeLookupResult(identifier: "public.png") }
}
