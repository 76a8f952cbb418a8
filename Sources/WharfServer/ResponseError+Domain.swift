import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfJSON
import WharfJSONRPC
import WharfSystem

extension ResponseError {
    /// The protocol error for whatever a handler threw. Domain errors map to their codes;
    /// anything else is an internal error whose details go to the log, not to the client.
    init(answering error: any Error, logger: Logger) {
        switch error {
        case let error as ResponseError: self = error
        case let error as DialogError: self = error.response
        case let error as AccessError: self = error.response
        case let error as ContentTypeError: self = .invalidParams(error.description)
        default:
            logger.error("internal error: \(error)")
            self = .internalError("internal error; see the server log")
        }
    }
}

extension Reply {
    /// Answers with what `body` returns, or with the protocol error for what it throws.
    func answer(logger: Logger, _ body: () throws -> WharfJSON.JSON) {
        do {
            succeed(try body())
        } catch {
            fail(ResponseError(answering: error, logger: logger))
        }
    }
}
