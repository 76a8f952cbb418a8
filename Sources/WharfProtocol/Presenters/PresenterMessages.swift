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
                client: ClientIdentityInfo? = nil) {
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
        title = try reader.optionalString("title")
        message = try reader.optionalString("message")
        confirmationLabel = try reader.optionalString("confirmationLabel")
        allowedContentTypes = try reader.strings("allowedContentTypes")
        allowsMultipleSelection = try reader.bool("allowsMultipleSelection", default: false)
        filters = try reader.object("filters") { reader throws(ProtocolError) in try DialogFiltersInfo(reading: &reader) }
        directory = try reader.string("directory")
        browserOptions = try reader.strings("browserOptions")
        if reader.has("documentCount") {
            exporter = Exporter(filename: try reader.optionalString("filename"), filenames: try reader.strings("filenames"),
                                contentTypes: try reader.strings("contentTypes"),
                                filenameLabel: try reader.optionalString("filenameLabel"),
                                documentCount: try reader.int("documentCount"),
                                contentTypeChoices: reader.has("contentTypeChoices")
                                    ? try reader.objects("contentTypeChoices") { reader throws(ProtocolError) in
                                        try ContentTypeChoiceInfo(reading: &reader)
                                    }
                                    : [])
        }
        mover = try reader.optionalObject("mover") { reader throws(ProtocolError) in try Mover(reading: &reader) }
        client = try reader.optionalObject("client") { reader throws(ProtocolError) in try ClientIdentityInfo(reading: &reader) }
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
            client: .example)
    }
}

/// One content type an exporter offers: what a type chooser shows for it, and the names the
/// documents take when the human picks it (for several documents, what `dialog/choose` with
/// this `contentType` and a folder writes).
public struct ContentTypeChoiceInfo: ProtocolValue {
    public var contentType: String
    public var description: String?
    public var filenames: [String]

    public init(contentType: String, description: String?, filenames: [String]) {
        self.contentType = contentType
        self.description = description
        self.filenames = filenames
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        contentType = try reader.string("contentType")
        description = try reader.optionalString("description")
        filenames = try reader.strings("filenames")
    }

    public var json: JSON {
        ["contentType": .string(contentType), "description": nullable(description), "filenames": .array(filenames.map(JSON.string))]
    }

    public static var example: ContentTypeChoiceInfo {
        ContentTypeChoiceInfo(contentType: "public.plain-text", description: "plain text document", filenames: ["notes.txt"])
    }
}

/// Filters for a file view: globs and MIME types. `allowsAllFiles` says that every file passes
/// (the lists are then empty); empty lists without it mean no file does (a folder picker).
public struct DialogFiltersInfo: ProtocolValue {
    public var globs: [String]
    public var mimeTypes: [String]
    public var directories: Bool
    public var allowsAllFiles: Bool

    public init(globs: [String], mimeTypes: [String], directories: Bool, allowsAllFiles: Bool = false) {
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
        self.allowsAllFiles = allowsAllFiles
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        globs = try reader.strings("globs")
        mimeTypes = try reader.strings("mimeTypes")
        directories = try reader.bool("directories", default: false)
        // A server older than the member meant all files by empty lists.
        allowsAllFiles = try reader.bool("allowsAllFiles", default: globs.isEmpty && mimeTypes.isEmpty)
    }

    public var json: JSON {
        ["globs": .array(globs.map(JSON.string)), "mimeTypes": .array(mimeTypes.map(JSON.string)), "directories": .bool(directories),
         "allowsAllFiles": .bool(allowsAllFiles)]
    }

    public static var example: DialogFiltersInfo { DialogFiltersInfo(globs: ["*.png"], mimeTypes: ["image/png"], directories: false) }
}

/// `presenter/hide` (server → frontend): the dialog ended from the app's side; take it down.
public struct PresenterHideNotification: NotificationMessage {
    public static let method = "presenter/hide"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public init(dialogId: String) { self.dialogId = dialogId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { dialogId = try reader.string("dialogId") }
    public var json: JSON { ["dialogId": .string(dialogId)] }
    public static var example: PresenterHideNotification { PresenterHideNotification(dialogId: "dlg-1") }
}

/// `dialog/list` (presenter): one page of a folder as the dialog's browser shows it.
public struct ListDirectoryRequest: RequestMessage {
    public static let method = "dialog/list"
    public typealias Result = ListDirectoryResult
    public var dialogId: String
    /// A path or `file:` URL; absent: where the dialog shows.
    public var directory: String?
    public var cursor: String?
    public var limit: Int64?
    /// Whether names starting with `.` are listed (the person showed or hid them); absent: as
    /// the dialog's `includeHiddenFiles`. Ignored with a cursor.
    public var showHidden: Bool?

    public init(dialogId: String, directory: String? = nil, cursor: String? = nil, limit: Int64? = nil,
                showHidden: Bool? = nil) {
        self.dialogId = dialogId
        self.directory = directory
        self.cursor = cursor
        self.limit = limit
        self.showHidden = showHidden
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        directory = try reader.optionalString("directory")
        cursor = try reader.optionalString("cursor")
        limit = try reader.optionalInt("limit", in: 1...Int64(Int32.max))
        showHidden = try reader.optionalBool("showHidden")
    }

    public var json: JSON {
        var object: JSONObject = ["dialogId": .string(dialogId)]
        object.set("directory", directory)
        object.set("cursor", cursor)
        object.set("limit", limit)
        object.set("showHidden", showHidden)
        return .object(object)
    }

    public static var example: ListDirectoryRequest {
        ListDirectoryRequest(dialogId: "dlg-1", directory: "file:///home/me", limit: 100, showHidden: true)
    }
}

public struct ListDirectoryResult: ProtocolValue {
    /// `file:` URLs.
    public var directory: String
    public var parent: String?
    public var entries: [DirectoryEntryInfo]
    public var nextCursor: String?
    /// Importers: whether `directory` itself may be chosen (a folder picker's choice); absent
    /// for an exporter.
    public var directoryEnabled: Bool?
    /// Why `directoryEnabled` is false, as a rejected `dialog/choose` would say it.
    public var directoryDisabledReason: String?

    public init(directory: String, parent: String?, entries: [DirectoryEntryInfo], nextCursor: String?,
                directoryEnabled: Bool? = nil, directoryDisabledReason: String? = nil) {
        self.directory = directory
        self.parent = parent
        self.entries = entries
        self.nextCursor = nextCursor
        self.directoryEnabled = directoryEnabled
        self.directoryDisabledReason = directoryDisabledReason
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        directory = try reader.string("directory")
        parent = try reader.optionalString("parent")
        entries = try reader.objects("entries") { reader throws(ProtocolError) in try DirectoryEntryInfo(reading: &reader) }
        nextCursor = try reader.optionalString("nextCursor")
        directoryEnabled = try reader.optionalBool("directoryEnabled")
        directoryDisabledReason = try reader.optionalString("directoryDisabledReason")
    }

    public var json: JSON {
        var object: JSONObject = ["directory": .string(directory), "parent": nullable(parent), "entries": .array(entries.map(\.json))]
        object.set("nextCursor", nextCursor)
        object.set("directoryEnabled", directoryEnabled)
        object.set("directoryDisabledReason", directoryDisabledReason)
        return .object(object)
    }

    public static var example: ListDirectoryResult {
        ListDirectoryResult(directory: "file:///home/me", parent: "file:///home", entries: [.example], nextCursor: "7:1000",
                            directoryEnabled: false,
                            directoryDisabledReason: "it is a directory, and this dialog takes only public.plain-text")
    }
}

/// One entry of a listing.
public struct DirectoryEntryInfo: ProtocolValue {
    /// For display; may be lossy for a name that is not UTF-8. `url` never is.
    public var name: String
    public var url: String
    public var isDirectory: Bool
    public var isPackage: Bool
    public var isHidden: Bool
    public var isSymlink: Bool
    public var contentType: String
    public var size: Int64
    /// ISO 8601.
    public var modified: String
    public var enabled: Bool
    /// Why `enabled` is false, as a rejected `dialog/choose` would say it; absent when enabled.
    public var disabledReason: String?

    public init(name: String, url: String, isDirectory: Bool, isPackage: Bool, isHidden: Bool, isSymlink: Bool,
                contentType: String, size: Int64, modified: String, enabled: Bool, disabledReason: String? = nil) {
        self.name = name
        self.url = url
        self.isDirectory = isDirectory
        self.isPackage = isPackage
        self.isHidden = isHidden
        self.isSymlink = isSymlink
        self.contentType = contentType
        self.size = size
        self.modified = modified
        self.enabled = enabled
        self.disabledReason = disabledReason
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        name = try reader.string("name")
        url = try reader.string("url")
        isDirectory = try reader.bool("isDirectory", default: false)
        isPackage = try reader.bool("isPackage", default: false)
        isHidden = try reader.bool("isHidden", default: false)
        isSymlink = try reader.bool("isSymlink", default: false)
        contentType = try reader.string("contentType")
        size = try reader.int("size")
        modified = try reader.string("modified")
        enabled = try reader.bool("enabled", default: false)
        disabledReason = try reader.optionalString("disabledReason")
    }

    public var json: JSON {
        var object: JSONObject = [
            "name": .string(name), "url": .string(url), "isDirectory": .bool(isDirectory), "isPackage": .bool(isPackage),
            "isHidden": .bool(isHidden), "isSymlink": .bool(isSymlink), "contentType": .string(contentType),
            "size": .int(size), "modified": .string(modified), "enabled": .bool(enabled),
        ]
        object.set("disabledReason", disabledReason)
        return .object(object)
    }

    public static var example: DirectoryEntryInfo {
        DirectoryEntryInfo(name: "a.png", url: "file:///home/me/a.png", isDirectory: false, isPackage: false, isHidden: false,
                           isSymlink: false, contentType: "public.png", size: 1024, modified: "2026-11-30T10:00:00Z",
                           enabled: false, disabledReason: "it is of type public.png, and this dialog takes only public.plain-text")
    }
}

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

    /// The values `conflictResolution` takes.
    public static let conflictResolutions = ["replace", "keepBoth"]

    public enum Choice: Sendable, Equatable {
        case files([String])
        case destination(url: String, contentType: String?, overwrite: Bool)
    }

    public init(dialogId: String, choice: Choice, conflictResolution: String? = nil) {
        self.dialogId = dialogId
        self.choice = choice
        self.conflictResolution = conflictResolution
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        conflictResolution = try reader.optionalString("conflictResolution")
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
        return .object(object)
    }

    public static var example: ChooseRequest { ChooseRequest(dialogId: "dlg-1", choice: .files(["file:///home/me/a.png"])) }
}

/// `dialog/dismiss` (presenter): the human dismissed the dialog.
public struct DismissRequest: RequestMessage {
    public static let method = "dialog/dismiss"
    public typealias Result = Empty
    public var dialogId: String
    public init(dialogId: String) { self.dialogId = dialogId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { dialogId = try reader.string("dialogId") }
    public var json: JSON { ["dialogId": .string(dialogId)] }
    public static var example: DismissRequest { DismissRequest(dialogId: "dlg-1") }
}

/// `dialog/fail` (presenter): it cannot show or finish the dialog.
public struct FailDialogRequest: RequestMessage {
    public static let method = "dialog/fail"
    public typealias Result = Empty
    public var dialogId: String
    public var message: String

    public init(dialogId: String, message: String) {
        self.dialogId = dialogId
        self.message = message
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        message = try reader.string("message")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "message": .string(message)] }
    public static var example: FailDialogRequest { FailDialogRequest(dialogId: "dlg-1", message: "the picker crashed") }
}
