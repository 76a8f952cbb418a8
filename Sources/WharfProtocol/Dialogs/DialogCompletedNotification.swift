import WharfJSON

/// `dialog/completed`: the files (success), or the failure.
public struct DialogCompletedNotification: NotificationMessage {
    public static let method = "dialog/completed"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    /// `importer` or `exporter`.
    public var kind: String
    public var outcome: Outcome

    public enum Outcome: Sendable, Equatable {
        /// An importer's picks, or an exporter's written files with the type each was written as.
        case files(urls: [String], contentTypes: [String]?)
        case failure(DialogFailureInfo)
    }

    public init(dialogId: String, kind: String, outcome: Outcome) {
        self.dialogId = dialogId
        self.kind = kind
        self.outcome = outcome
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        kind = try reader.string("kind")
        if reader.has("error") {
            outcome = .failure(try reader.object("error") { reader throws(ProtocolError) in try DialogFailureInfo(reading: &reader) })
        } else {
            outcome = .files(urls: try reader.strings("urls"), contentTypes: try reader.optionalStrings("contentTypes"))
        }
    }

    public var json: JSON {
        var object: JSONObject = ["dialogId": .string(dialogId), "kind": .string(kind)]
        switch outcome {
        case .files(let urls, let contentTypes):
            object["urls"] = .array(urls.map(JSON.string))
            object.set("contentTypes", contentTypes)
        case .failure(let failure):
            object["error"] = failure.json
        }
        return .object(object)
    }

    public static var example: DialogCompletedNotification {
        DialogCompletedNotification(dialogId: "dlg-1", kind: "importer", outcome: .files(urls: ["file:///home/me/a.png"], contentTypes: nil))
    }
}
