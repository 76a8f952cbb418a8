import WharfJSON

public struct WriteFileResult: ProtocolValue {
    public var bytesWritten: Int64
    public init(bytesWritten: Int64) { self.bytesWritten = bytesWritten }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { bytesWritten = try reader.int("bytesWritten") }
    public var json: JSON { ["bytesWritten": .int(bytesWritten)] }
    public static var example: WriteFileResult { WriteFileResult(bytesWritten: 5) }
}
