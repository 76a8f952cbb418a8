import WharfJSON

/// What the server can do, and who will show this client's dialogs.
public struct ServerCapabilities: ProtocolValue {
    public var framings: [String]
    public var maxTransferBytes: Int64
    /// Every presenter usable for this client (`frontend`, `script`, `portal`, `zenity`, `kdialog`).
    public var presenters: [String]
    /// The one this client's dialogs get; nil when none is usable (`present…` then answers
    /// `noPresenter`).
    public var presenter: String?
    /// For each presenter that is not usable, why not.
    public var unavailablePresenters: [String: String]
    public var maxDialogsPerClient: Int64

    public init(framings: [String], maxTransferBytes: Int64, presenters: [String], presenter: String?,
                unavailablePresenters: [String: String], maxDialogsPerClient: Int64) {
        self.framings = framings
        self.maxTransferBytes = maxTransferBytes
        self.presenters = presenters
        self.presenter = presenter
        self.unavailablePresenters = unavailablePresenters
        self.maxDialogsPerClient = maxDialogsPerClient
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        _ = try reader.bool("ping")
        framings = try reader.strings("framings")
        _ = try reader.bool("contentTypes")
        _ = try reader.bool("importer")
        _ = try reader.bool("exporter")
        _ = try reader.optionalBool("mover")
        maxTransferBytes = try reader.object("access") { reader throws(ProtocolError) in
            _ = try reader.bool("bookmarks")
            _ = try reader.bool("fileIO")
            return try reader.int("maxTransferBytes")
        }
        presenters = try reader.strings("presenters")
        presenter = try reader.nullableString("presenter")
        unavailablePresenters = try reader.optionalStringMap("unavailablePresenters") ?? [:]
        maxDialogsPerClient = try reader.int("maxDialogsPerClient")
    }

    public var json: JSON {
        var object: JSONObject = [
            "ping": true,
            "framings": .array(framings.map(JSON.string)),
            "contentTypes": true,
            "importer": true,
            "exporter": true,
            "mover": true,
            "access": ["bookmarks": true, "fileIO": true, "maxTransferBytes": .int(maxTransferBytes)],
            "presenters": .array(presenters.map(JSON.string)),
            "presenter": nullable(presenter),
        ]
        if !unavailablePresenters.isEmpty {
            object["unavailablePresenters"] = .object(JSONObject(unavailablePresenters.sorted { $0.key < $1.key }
                .map { (key: $0.key, value: JSON.string($0.value)) }))
        }
        object["maxDialogsPerClient"] = .int(maxDialogsPerClient)
        return .object(object)
    }

    public static var example: ServerCapabilities {
        ServerCapabilities(framings: ["lsp", "ndjson"], maxTransferBytes: 16_777_216, presenters: ["frontend", "zenity"],
                           presenter: "frontend", unavailablePresenters: ["portal": "no session bus"], maxDialogsPerClient: 64)
    }
}
