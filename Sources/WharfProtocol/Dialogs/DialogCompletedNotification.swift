import WharfJSON

/// `dialog/completed`: the files (success), or the failure.
public struct DialogCompletedNotification: NotificationMessage {
    public static let method = "dialog/completed"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    /// `importer` or `exporter`.
    public var kind: String
    public var outcome: Outcome
    /// The index in `options.filters` of the filter in force at the pick; absent for a dialog
    /// without filters.
    public var filter: Int64?
    /// Each choice's value by its id; absent for a dialog without choices.
    public var choices: [String: String]?

    public enum Outcome: Sendable, Equatable {
        /// An importer's picks, or an exporter's written files with the type each was written as.
        case files(urls: [String], contentTypes: [String]?)
        case failure(DialogFailureInfo)
    }

    public init(dialogId: String, kind: String, outcome: Outcome, filter: Int64? = nil, choices: [String: String]? = nil) {
        self.filter = filter
        self.choices = choices
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
        filter = try reader.optionalInt("filter", in: 0...Int64(Int32.max))
        choices = try reader.optionalStringMap("choices")
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
        object.set("filter", filter)
        if let choices { object["choices"] = choiceValuesJSON(choices) }
        return .object(object)
    }

    public static var example: DialogCompletedNotification {
        DialogCompletedNotification(dialogId: "dlg-1", kind: "importer", outcome: .files(urls: ["file:///home/me/a.png"], contentTypes: nil),
                                    filter: 1, choices: ["encoding": "latin1"])
    }
}
