import WharfJSON

/// `$/setTrace`.
public struct SetTraceNotification: NotificationMessage {
    public static let method = "$/setTrace"
    public var value: TraceLevel

    public init(value: TraceLevel) { self.value = value }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        let text = try reader.string("value")
        guard let level = TraceLevel(rawValue: text) else {
            throw ProtocolError("value: expected \"off\", \"messages\" or \"verbose\", got \"\(text)\"")
        }
        value = level
    }

    public var json: JSON { ["value": .string(value.rawValue)] }
    public static var example: SetTraceNotification { SetTraceNotification(value: .messages) }
}
