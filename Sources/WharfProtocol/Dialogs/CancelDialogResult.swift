import WharfJSON

public struct CancelDialogResult: ProtocolValue {
    /// False when the dialog had already ended.
    public var cancelled: Bool
    public init(cancelled: Bool) { self.cancelled = cancelled }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { cancelled = try reader.bool("cancelled") }
    public var json: JSON { ["cancelled": .bool(cancelled)] }
    public static var example: CancelDialogResult { CancelDialogResult(cancelled: true) }
}
