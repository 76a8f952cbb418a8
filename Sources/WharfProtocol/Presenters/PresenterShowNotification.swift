import WharfJSON

/// `presenter/show` (server → frontend): draw this dialog.
public struct PresenterShowNotification: NotificationMessage {
    public static let method = "presenter/show"
    public static var direction: Direction { .serverToClient }

    public var dialogId: String
    public var kind: String
    public var title: String?
    public var message: String?
    public var confirmationLabel: String?
    public var allowedContentTypes: [String]
    public var allowsMultipleSelection: Bool
    public var filters: DialogFiltersInfo
    /// A `file:` URL.
    public var directory: String
    public var browserOptions: [String]
    /// Exporters only (nil for importers).
    public var exporter: Exporter?
    /// Movers only: the files to be moved, for the human to see what the folder is chosen for.
    public var mover: Mover?
    /// Whose dialog it is: sent to a presenter connection (`role: presenter`), which shows
    /// other clients' dialogs; absent for a client's own.
    public var client: ClientIdentityInfo?
    /// The dialog's named filters (absent when it has none), each with what a file view shows
    /// for it, and the index of the one selected at first.
    public var namedFilters: [NamedFilterInfo]
    public var currentFilter: Int64?
    /// Choices to show beside the file list (absent when there are none), each with its
    /// `initial` value.
    public var choices: [DialogChoiceParams]

    /// One named filter as a file view shows it.
    public struct NamedFilterInfo: ProtocolValue {
        public var name: String
        public var filters: DialogFiltersInfo

        public init(name: String, filters: DialogFiltersInfo) {
            self.name = name
            self.filters = filters
        }

        public init(reading reader: inout FieldReader) throws(ProtocolError) {
            name = try reader.string("name")
            filters = try reader.object("filters") { reader throws(ProtocolError) in try DialogFiltersInfo(reading: &reader) }
        }

        public var json: JSON { ["name": .string(name), "filters": filters.json] }
        public static var example: NamedFilterInfo { NamedFilterInfo(name: "PNG images", filters: .example) }
    }

    public struct Exporter: Sendable, Equatable {
        public var filename: String?
        public var filenames: [String]
        public var contentTypes: [String]
        public var filenameLabel: String?
        public var documentCount: Int64
        /// One for each of `contentTypes`, in order (empty from a server older than them).
        public var contentTypeChoices: [ContentTypeChoiceInfo]

        public init(filename: String?, filenames: [String], contentTypes: [String], filenameLabel: String?, documentCount: Int64,
                    contentTypeChoices: [ContentTypeChoiceInfo] = []) {
            self.filename = filename
            self.filenames = filenames
            self.contentTypes = contentTypes
            self.filenameLabel = filenameLabel
            self.documentCount = documentCount
            self.contentTypeChoices = contentTypeChoices
        }
    }

    /// What a mover's `presenter/show` adds: `mover: {urls}`.
    public struct Mover: ProtocolValue {
        /// The files to be moved, in the order the app gave them (`file:` URLs).
        public var urls: [String]

        public init(urls: [String]) { self.urls = urls }
        public init(reading reader: inout FieldReader) throws(ProtocolError) { urls = try reader.strings("urls") }
        public var json: JSON { ["urls": .array(urls.map(JSON.string))] }
        public static var example: Mover { Mover(urls: ["file:///home/me/Downloads/report.pdf"]) }
    }

    public init(dialogId: String, kind: String, title: String?, message: String?, confirmationLabel: String?,
                allowedContentTypes: [String], allowsMultipleSelection: Bool, filters: DialogFiltersInfo,
                directory: String, browserOptions: [String], exporter: Exporter?, mover: Mover? = nil,
                client: ClientIdentityInfo? = nil, namedFilters: [NamedFilterInfo] = [], currentFilter: Int64? = nil,
                choices: [DialogChoiceParams] = []) {
        self.namedFilters = namedFilters
        self.currentFilter = currentFilter
        self.choices = choices
        self.dialogId = dialogId
        self.kind = kind
        self.title = title
        self.message = message
        self.confirmationLabel = confirmationLabel
        self.allowedContentTypes = allowedContentTypes
        self.allowsMultipleSelection = allowsMultipleSelection
        self.filters = filters
        self.directory = directory
        self.browserOptions = browserOptions
        self.exporter = exporter
        self.mover = mover
        self.client = client
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        kind = try reader.string("kind")
        title = try reader.nullableString("title")
        message = try reader.nullableString("message")
        confirmationLabel = try reader.nullableString("confirmationLabel")
        allowedContentTypes = try reader.strings("allowedContentTypes")
        allowsMultipleSelection = try reader.bool("allowsMultipleSelection")
        filters = try reader.object("filters") { reader throws(ProtocolError) in try DialogFiltersInfo(reading: &reader) }
        directory = try reader.string("directory")
        browserOptions = try reader.strings("browserOptions")
        if reader.has("documentCount") {
            // An exporter's fields, which an importer's show has none of: optional in the
            // schema, required here of an exporter.
            guard let documentCount = try reader.optionalInt("documentCount") else { throw reader.missing("documentCount") }
            guard let filenames = try reader.optionalStrings("filenames") else { throw reader.missing("filenames") }
            guard let contentTypes = try reader.optionalStrings("contentTypes") else { throw reader.missing("contentTypes") }
            exporter = Exporter(filename: try reader.optionalString("filename"), filenames: filenames, contentTypes: contentTypes,
                                filenameLabel: try reader.optionalString("filenameLabel"), documentCount: documentCount,
                                contentTypeChoices: try reader.optionalObjects("contentTypeChoices") { reader throws(ProtocolError) in
                                    try ContentTypeChoiceInfo(reading: &reader)
                                } ?? [])
        }
        mover = try reader.optionalObject("mover") { reader throws(ProtocolError) in try Mover(reading: &reader) }
        client = try reader.optionalObject("client") { reader throws(ProtocolError) in try ClientIdentityInfo(reading: &reader) }
        namedFilters = try reader.optionalObjects("namedFilters") { reader throws(ProtocolError) in try NamedFilterInfo(reading: &reader) } ?? []
        currentFilter = try reader.optionalInt("currentFilter", in: 0...Int64(Int32.max))
        choices = try reader.optionalObjects("choices") { reader throws(ProtocolError) in try DialogChoiceParams(reading: &reader) } ?? []
    }

    public var json: JSON {
        var object: JSONObject = [
            "dialogId": .string(dialogId), "kind": .string(kind),
            "title": nullable(title), "message": nullable(message), "confirmationLabel": nullable(confirmationLabel),
            "allowedContentTypes": .array(allowedContentTypes.map(JSON.string)),
            "allowsMultipleSelection": .bool(allowsMultipleSelection),
            "filters": filters.json, "directory": .string(directory),
            "browserOptions": .array(browserOptions.map(JSON.string)),
        ]
        if let exporter {
            object["filename"] = nullable(exporter.filename)
            object["filenames"] = .array(exporter.filenames.map(JSON.string))
            object["contentTypes"] = .array(exporter.contentTypes.map(JSON.string))
            object["filenameLabel"] = nullable(exporter.filenameLabel)
            object["documentCount"] = .int(exporter.documentCount)
            object["contentTypeChoices"] = .array(exporter.contentTypeChoices.map(\.json))
        }
        object.set("mover", mover)
        object.set("client", client)
        if !namedFilters.isEmpty {
            object.set("namedFilters", namedFilters)
            object.set("currentFilter", currentFilter)
        }
        if !choices.isEmpty { object.set("choices", choices) }
        return .object(object)
    }

    public static var example: PresenterShowNotification {
        PresenterShowNotification(
            dialogId: "dlg-2", kind: "exporter", title: "Save notes", message: nil, confirmationLabel: nil,
            allowedContentTypes: [], allowsMultipleSelection: false,
            filters: DialogFiltersInfo(globs: ["*.txt"], mimeTypes: ["text/plain"], directories: false),
            directory: "file:///home/me/Documents", browserOptions: [],
            exporter: Exporter(filename: "notes.txt", filenames: ["notes.txt"], contentTypes: ["public.plain-text", "public.html"],
                               filenameLabel: "Save as:", documentCount: 1,
                               contentTypeChoices: [.example,
                                                    ContentTypeChoiceInfo(contentType: "public.html", description: "HTML text",
                                                                          filenames: ["notes.html"])]),
            client: .example, namedFilters: [.example], currentFilter: 0, choices: [.example])
    }
}
