import WharfJSON

public struct DeclareTypesResult: ProtocolValue {
    public var declared: [String]
    public init(declared: [String]) { self.declared = declared }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { declared = try reader.strings("declared") }
    public var json: JSON { ["declared": .array(declared.map(JSON.string))] }
    public static var example: DeclareTypesResult { DeclareTypesResult(declared: ["com.example.notes"]) }
}
