import WharfJSON

public struct ListAccessResult: ProtocolValue {
    public var entries: [AccessEntryInfo]
    public var activeLeases: Int64

    public init(entries: [AccessEntryInfo], activeLeases: Int64) {
        self.entries = entries
        self.activeLeases = activeLeases
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        entries = try reader.objects("entries") { reader throws(ProtocolError) in try AccessEntryInfo(reading: &reader) }
        activeLeases = try reader.int("activeLeases")
    }

    public var json: JSON { ["entries": .array(entries.map(\.json)), "activeLeases": .int(activeLeases)] }
    public static var example: ListAccessResult { ListAccessResult(entries: [.example], activeLeases: 1) }
}
