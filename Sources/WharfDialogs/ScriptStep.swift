import WharfFileWriting
import WharfSystem

/// One step of a presenter script (`wharf --presenter script:FILE`); the server parses the
/// file's JSON into these.
public enum ScriptStep: Sendable, Equatable {
    /// Importer: pick these files (absolute paths, or relative to the dialog's directory).
    /// Mover: the one folder to move the files into, and what the human answers when names
    /// there are taken (nil: the script cannot be asked, and a taken name fails the dialog).
    case choose([String], conflictResolution: MoveConflictResolution? = nil)
    /// Dismiss the dialog, as a human pressing Cancel.
    case dismiss
    /// Wait this long before the next step, without blocking any thread.
    case delay(milliseconds: Int)
    /// Assert what the dialog asks; a mismatch fails the dialog naming the field.
    case expect(ScriptExpectation)
    /// Exporter: save. `path` names the file for one document, the directory for several
    /// (absolute, or relative to the dialog's directory); nil takes the suggestion.
    case save(path: String?, contentType: String?, overwrite: Bool)
    /// Select the named filter with this name (``DialogOptions/filters``), as a person picking
    /// it from the dialog's filter menu; the steps after it are judged by it.
    case selectFilter(String)
    /// Set a choice (``DialogOptions/choices``) to a value: an option's id, or `true`/`false`.
    case setChoice(id: String, value: String)

    /// The step answers the dialog (the dialog's last step).
    public var isEnding: Bool {
        switch self {
        case .choose, .dismiss, .save: return true
        case .delay, .expect, .selectFilter, .setChoice: return false
        }
    }
}

/// What a script expects a dialog to ask. Every field is optional; only those given are checked.
public struct ScriptExpectation: Sendable, Equatable {
    public var kind: DialogKind?
    public var allowedContentTypes: [String]?
    public var allowsMultipleSelection: Bool?
    public var title: String?
    public var message: String?
    public var confirmationLabel: String?
    /// Compared after normalisation.
    public var directory: FilePath?
    /// Exporter: the suggested file name.
    public var filename: String?
    /// Exporter: the offered content types.
    public var contentTypes: [String]?
    public var filenameLabel: String?
    public var browserOptions: BrowserOptions?

    public init(
        kind: DialogKind? = nil, allowedContentTypes: [String]? = nil, allowsMultipleSelection: Bool? = nil,
        title: String? = nil, message: String? = nil, confirmationLabel: String? = nil, directory: FilePath? = nil,
        filename: String? = nil, contentTypes: [String]? = nil, filenameLabel: String? = nil,
        browserOptions: BrowserOptions? = nil
    ) {
        self.kind = kind
        self.allowedContentTypes = allowedContentTypes
        self.allowsMultipleSelection = allowsMultipleSelection
        self.title = title
        self.message = message
        self.confirmationLabel = confirmationLabel
        self.directory = directory
        self.filename = filename
        self.contentTypes = contentTypes
        self.filenameLabel = filenameLabel
        self.browserOptions = browserOptions
    }

    /// The first field that does not hold, as "field: expected …, got …"; nil when all hold.
    func mismatch(in dialog: PresentedDialog) -> String? {
        func quoted(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "nothing" }
        func list(_ values: [String]) -> String { "[" + values.joined(separator: ", ") + "]" }
        func text(_ field: String, _ expected: String?, _ actual: String?) -> String? {
            guard let expected, expected != actual else { return nil }
            return "\(field): expected \(quoted(expected)), got \(quoted(actual))"
        }
        func types(_ field: String, _ expected: [String]?, _ actual: [String]) -> String? {
            guard let expected, expected != actual else { return nil }
            return "\(field): expected \(list(expected)), got \(list(actual))"
        }

        if let kind, kind != dialog.kind { return "kind: expected \(kind), got \(dialog.kind)" }
        let importer = dialog.importer ?? .init(allowedContentTypes: [], allowsMultipleSelection: false)
        let exporter = dialog.exporter ?? .init(filename: nil, filenames: [], contentTypes: [], filenameLabel: nil)
        if let mismatch = types("allowedContentTypes", allowedContentTypes, importer.allowedContentTypes) { return mismatch }
        if let allowsMultipleSelection, allowsMultipleSelection != importer.allowsMultipleSelection {
            return "allowsMultipleSelection: expected \(allowsMultipleSelection), got \(importer.allowsMultipleSelection)"
        }
        if let mismatch = text("title", title, dialog.title) { return mismatch }
        if let mismatch = text("message", message, dialog.message) { return mismatch }
        if let mismatch = text("confirmationLabel", confirmationLabel, dialog.confirmationLabel) { return mismatch }
        if let directory, directory.normalized != dialog.directory {
            return "directory: expected \(quoted(directory.description)), got \(quoted(dialog.directory.description))"
        }
        if let mismatch = text("filename", filename, exporter.filename) { return mismatch }
        if let mismatch = types("contentTypes", contentTypes, exporter.contentTypes) { return mismatch }
        if let mismatch = text("filenameLabel", filenameLabel, exporter.filenameLabel) { return mismatch }
        if let browserOptions, browserOptions != dialog.browserOptions {
            return "browserOptions: expected \(list(browserOptions.names)), got \(list(dialog.browserOptions.names))"
        }
        return nil
    }
}

