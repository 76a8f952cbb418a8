import WharfJSON

/// `dialog/choose` (presenter): the human's choice. An importer's files (`urls`), an
/// exporter's destination (`url`, with a type and whether replacing was agreed), or a mover's
/// folder (`url`, or `urls` holding just it), with how the human settled names already taken
/// there (`conflictResolution`).
public struct ChooseRequest: RequestMessage {
    public static let method = "dialog/choose"
    public typealias Result = Empty
    public var dialogId: String
    public var choice: Choice
    /// A mover's answer to names already taken in the folder: `replace` or `keepBoth`; absent
    /// when the human was not asked (the choice is then refused `nameConflict` if any is).
    public var conflictResolution: String?
    /// The index of the named filter the person had selected (`presenter/show`'s
    /// `namedFilters`); absent: the one last selected (at first `currentFilter`).
    public var filter: Int64?
    /// The person's value of each choice they changed, by choice id; the others keep theirs.
    public var choices: [String: String]?

    /// The values `conflictResolution` takes.
    public static let conflictResolutions = ["replace", "keepBoth"]

    public enum Choice: Sendable, Equatable {
        case files([String])
        case destination(url: String, contentType: String?, overwrite: Bool)
    }

    public init(dialogId: String, choice: Choice, conflictResolution: String? = nil, filter: Int64? = nil,
                choices: [String: String]? = nil) {
        self.filter = filter
        self.choices = choices
        self.dialogId = dialogId
        self.choice = choice
        self.conflictResolution = conflictResolution
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        conflictResolution = try reader.optionalString("conflictResolution")
        filter = try reader.optionalInt("filter", in: 0...Int64(Int32.max))
        choices = try reader.optionalStringMap("choices")
        if let resolution = conflictResolution, !Self.conflictResolutions.contains(resolution) {
            throw ProtocolError("conflictResolution: expected replace or keepBoth, got \(resolution)")
        }
        if reader.has("urls") && reader.has("url") {
            throw ProtocolError("dialog/choose takes urls (an importer's picks) or url (an exporter's destination), not both")
        }
        if let urls = try reader.optionalStrings("urls") {
            choice = .files(urls)
        } else if let url = try reader.optionalString("url") {
            choice = .destination(url: url, contentType: try reader.optionalString("contentType"),
                                  overwrite: try reader.bool("overwrite", default: false))
        } else {
            _ = try reader.optionalString("contentType")
            _ = try reader.optionalBool("overwrite")
            throw ProtocolError("dialog/choose needs urls (an importer's picks) or url (an exporter's destination)")
        }
    }

    public var json: JSON {
        var object: JSONObject = ["dialogId": .string(dialogId)]
        switch choice {
        case .files(let urls): object["urls"] = .array(urls.map(JSON.string))
        case .destination(let url, let contentType, let overwrite):
            object["url"] = .string(url)
            object.set("contentType", contentType)
            object["overwrite"] = .bool(overwrite)
        }
        object.set("conflictResolution", conflictResolution)
        object.set("filter", filter)
        if let choices { object["choices"] = choiceValuesJSON(choices) }
        return .object(object)
    }

    /// An exporter's choice: the form with every field (an importer's has only `urls`).
    public static var example: ChooseRequest {
        ChooseRequest(dialogId: "dlg-1", choice: .destination(url: "file:///home/me/a.png", contentType: "public.png", overwrite: true))
    }
}
