import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension ResponseError {
    /// An error with one of the protocol's codes (``WharfErrorCode``).
    init(_ code: WharfErrorCode, _ message: String, data: JSON? = nil) {
        self.init(ErrorCode(code.rawValue), message, data: data)
    }

    /// The protocol error for whatever a handler threw. Domain errors map to their codes;
    /// anything else is an internal error whose details go to the log, not to the client.
    init(answering error: any Error, logger: Logger) {
        switch error {
        case let error as ResponseError: self = error
        case let error as ProtocolError: self = .invalidParams(error.message)
        case let error as DialogError: self = error.response
        case let error as AccessError:
            // The client is told what failed; the person running Wharf must hear of it too.
            if case .store(let failure) = error { logger.error("state store (\(failure.kind.rawValue)): \(failure.message)") }
            self = error.response
        case let error as ContentTypeError: self = .invalidParams(error.description)
        default:
            logger.error("internal error: \(error)")
            self = .internalError("internal error; see the server log")
        }
    }
}

extension DialogError {
    /// The protocol error for an engine error: -32602 for bad params, Wharf's own codes for
    /// the rest, with the ids a client needs in `data`.
    var response: ResponseError {
        if isInvalidParams { return .invalidParams(description) }
        switch self {
        case .alreadyPresented(_, let dialog):
            return ResponseError(WharfErrorCode.alreadyPresented, description, data: ["dialogId": .string(dialog.rawValue)])
        case .tooManyDialogs:
            return ResponseError(WharfErrorCode.tooManyDialogs, description)
        case .unknownDialog:
            return ResponseError(WharfErrorCode.dialogNotFound, description)
        case .notPresenter:
            return ResponseError(WharfErrorCode.notPresenter, description)
        case .alreadyEnded, .choiceAlreadyMade:
            return ResponseError(WharfErrorCode.dialogEnded, description)
        case .rejectedChoice(let url, _):
            return ResponseError(WharfErrorCode.choiceRejected, description, data: ["url": .string(url)])
        case .contentTypeNotOffered, .notAFileURL:
            return ResponseError(WharfErrorCode.choiceRejected, description)
        case .fileExists(let url):
            return ResponseError(WharfErrorCode.fileExists, description, data: ["url": .string(url)])
        case .cannotList:
            return ResponseError(WharfErrorCode.fileOperationFailed, description)
        case .clientEnded:
            return ResponseError(WharfErrorCode.requestCancelled, description)
        case .nameConflict(let folder, let names):
            return ResponseError(WharfErrorCode.nameConflict, description, data: [
                "urls": .array(names.map { .string(folder.appending($0).url) }),
                "names": .array(names.map { .string(String(decoding: $0, as: UTF8.self)) }),
            ])
        default:
            return .invalidParams(description)
        }
    }
}

extension DialogFailure.Code {
    /// The protocol's number for each way a dialog can fail.
    var errorCode: WharfErrorCode {
        switch self {
        case .presenterFailed: return WharfErrorCode.presenterFailed
        case .snapshotFailed: return WharfErrorCode.snapshotFailed
        case .fileExists: return WharfErrorCode.fileExists
        case .nameConflict: return WharfErrorCode.nameConflict
        default: return WharfErrorCode.fileOperationFailed
        }
    }
}

extension AccessError {
    var response: ResponseError {
        switch self {
        case .accessDenied, .readOnly:
            return ResponseError(WharfErrorCode.accessDenied, description)
        case .bookmarkInvalid(_, let lastKnownPath):
            return ResponseError(WharfErrorCode.bookmarkInvalid, description,
                                 data: lastKnownPath.map { ["lastKnownUrl": .string(FileURL.from(path: $0))] })
        case .unknownAccessId, .alreadyReleased:
            return ResponseError(WharfErrorCode.accessNotFound, description)
        case .tooLarge, .invalidArgument:
            return .invalidParams(description)
        case .tooManyLeases(let limit):
            return ResponseError(WharfErrorCode.invalidParams, description, data: ["limit": .int(Int64(limit))])
        case .io:
            return ResponseError(WharfErrorCode.fileOperationFailed, description)
        case .store(let failure):
            return ResponseError(WharfErrorCode.internalError, "the state store failed: \(failure.message)",
                                 data: ["store": .string(failure.kind.rawValue)])
        }
    }
}
