import WharfSystem

/// Why the engine refused a request. Nothing changed when one of these is thrown: a refused
/// `present` presents nothing, a refused choice leaves the dialog open exactly as it was.
///
/// The server maps these to protocol errors: the validation cases (`invalidArgument`,
/// `unknownContentTypes`, `emptyDocuments`, `invalidPredicate`) to -32602 Invalid params, the
/// others to Wharf's own codes (``name`` is a stable key for that table).
public enum DialogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A request field is malformed, empty or out of range. `field` is the path of the field in
    /// the request (`options.timeoutMs`, `documents[2].filename`).
    case invalidArgument(field: String, reason: String)
    /// Content type identifiers the content-type registry does not know, all of them named.
    case unknownContentTypes(field: String, identifiers: [String])
    /// An exporter needs at least one document (SwiftUI: "documents must not be empty").
    case emptyDocuments
    /// The `urlEnabled` predicate is malformed; `path` locates the offending node
    /// (`options.urlEnabled.all[1].conformsTo`).
    case invalidPredicate(path: String, reason: String)
    /// A dialog with this `presentationId` is still presented for this client (the view's
    /// `isPresented` binding is already true); `dialog` is the open one.
    case alreadyPresented(presentationId: String, dialog: DialogID)
    /// The client already has `limit` open dialogs.
    case tooManyDialogs(limit: Int)
    /// No dialog with this id was ever presented for this client.
    case unknownDialog(DialogID)
    /// The dialog has already ended; late input changes nothing.
    case alreadyEnded(DialogID)
    /// Input for a dialog from someone other than its presenter (`shownBy` names it): only
    /// the presenter answers a dialog; the app ends it with `cancel`.
    case notPresenter(DialogID, shownBy: String)
    /// The request is for the other kind of dialog (a `save` for an importer, …).
    case wrongKind(DialogID, expected: DialogKind, actual: DialogKind)
    /// The exporter's destination was already chosen; the dialog is producing or writing its
    /// documents and takes no further choice.
    case choiceAlreadyMade(DialogID)
    /// The chosen file cannot be accepted; the dialog stays open, as a real dialog would not let
    /// the user confirm it.
    case rejectedChoice(url: String, reason: String)
    /// A choice that names no file: neither an absolute path nor a `file:` URL. The dialog
    /// stays open.
    case notAFileURL(String)
    /// The chosen destination exists and the choice did not say `overwrite`; the dialog stays open.
    case fileExists(url: String)
    /// The chosen content type is not one the exporter offered; the dialog stays open.
    case contentTypeNotOffered(String, offered: [String])
    /// A directory cannot be listed (missing, not a directory, unreadable, a package while
    /// packages are not enumerated).
    case cannotList(directory: FilePath, reason: String)
    /// A listing cursor that this dialog did not hand out, or one for a listing since replaced.
    case invalidCursor(String)
    /// The exporter is not waiting for a snapshot of this document.
    case notAwaitingSnapshot(DialogID, documentIndex: Int)
    /// The client's session ended while its `present…` was on its way: nothing is presented.
    case clientEnded
    /// A mover's chosen folder already holds these names (bytes) of the files to move, and the
    /// human was not asked whether to replace them or keep both; the dialog stays open.
    case nameConflict(folder: FilePath, names: [[UInt8]])

    /// A stable key for the server's error table.
    public var name: String {
        switch self {
        case .invalidArgument: return "invalidArgument"
        case .unknownContentTypes: return "unknownContentTypes"
        case .emptyDocuments: return "emptyDocuments"
        case .invalidPredicate: return "invalidPredicate"
        case .alreadyPresented: return "alreadyPresented"
        case .tooManyDialogs: return "tooManyDialogs"
        case .unknownDialog: return "unknownDialog"
        case .alreadyEnded: return "alreadyEnded"
        case .notPresenter: return "notPresenter"
        case .wrongKind: return "wrongKind"
        case .choiceAlreadyMade: return "choiceAlreadyMade"
        case .rejectedChoice: return "rejectedChoice"
        case .notAFileURL: return "notAFileURL"
        case .fileExists: return "fileExists"
        case .contentTypeNotOffered: return "contentTypeNotOffered"
        case .cannotList: return "cannotList"
        case .invalidCursor: return "invalidCursor"
        case .notAwaitingSnapshot: return "notAwaitingSnapshot"
        case .clientEnded: return "clientEnded"
        case .nameConflict: return "nameConflict"
        }
    }

    /// True for the errors that mean "the request's parameters are invalid" (-32602).
    public var isInvalidParams: Bool {
        switch self {
        case .invalidArgument, .unknownContentTypes, .emptyDocuments, .invalidPredicate: return true
        default: return false
        }
    }

    /// "a.txt and b.txt are already in /home/me/Documents", names shown as text (lossily:
    /// the URLs beside it keep the bytes).
    static func conflictSentence(folder: FilePath, names: [[UInt8]]) -> String {
        let shown = names.map { "\u{201C}" + String(decoding: $0, as: UTF8.self) + "\u{201D}" }
        let list = shown.count <= 1 ? shown.joined()
            : shown.dropLast().joined(separator: ", ") + " and " + shown[shown.count - 1]
        return list + (names.count == 1 ? " is" : " are") + " already in \(folder)"
    }

    public var description: String {
        switch self {
        case .invalidArgument(let field, let reason):
            return "\(field) \(reason)"
        case .unknownContentTypes(let field, let identifiers):
            let list = identifiers.map { "\"\($0)\"" }.joined(separator: ", ")
            return "\(field) names content types Wharf does not know: \(list)"
        case .emptyDocuments:
            return "documents must not be empty"
        case .invalidPredicate(let path, let reason):
            return "\(path) is not a valid predicate: \(reason)"
        case .alreadyPresented(let presentationId, let dialog):
            return "a dialog with presentationId \"\(presentationId)\" is already presented (\(dialog))"
        case .tooManyDialogs(let limit):
            return "this client already has \(limit) open dialogs, the most it may have"
        case .unknownDialog(let id):
            return "there is no dialog \(id) for this client"
        case .alreadyEnded(let id):
            return "dialog \(id) has already ended"
        case .notPresenter(let id, let presenter):
            return "dialog \(id) is shown by the \(presenter) presenter, not by this client: only its presenter answers it (the app ends it with cancel)"
        case .wrongKind(let id, let expected, let actual):
            return "dialog \(id) is an \(actual), and this request is for an \(expected)"
        case .choiceAlreadyMade(let id):
            return "dialog \(id) already has its destination and is saving; it takes no further choice"
        case .rejectedChoice(let url, let reason):
            return "\(url) cannot be chosen: \(reason)"
        case .notAFileURL(let text):
            return "\(text) cannot be chosen: it is neither an absolute path nor a file: URL"
        case .fileExists(let url):
            return "\(url) already exists; choose it again with overwrite to replace it"
        case .contentTypeNotOffered(let type, let offered):
            return "content type \"\(type)\" is not one this dialog offers (\(offered.joined(separator: ", ")))"
        case .cannotList(let directory, let reason):
            return "cannot list \(directory): \(reason)"
        case .invalidCursor(let cursor):
            return "cursor \"\(cursor)\" does not belong to a current listing of this dialog; list the directory again"
        case .notAwaitingSnapshot(let id, let index):
            return "dialog \(id) is not waiting for a snapshot of document \(index)"
        case .clientEnded:
            return "the session ended before the dialog was presented; nothing was presented"
        case .nameConflict(let folder, let names):
            return Self.conflictSentence(folder: folder, names: names)
                + ": choose again with conflictResolution replace or keepBoth, or choose another folder"
        }
    }
}
