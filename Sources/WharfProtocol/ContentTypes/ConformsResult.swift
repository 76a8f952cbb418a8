import WharfJSON

public struct ConformsResult: ProtocolValue {
    public var conforms: Bool
    public init(conforms: Bool) { self.conforms = conforms }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { conforms = try reader.bool("conforms") }
    public var json: JSON { ["conforms": .bool(conforms)] }
    public static var example: ConformsResult { ConformsResult(conforms: true) }
}
