import WharfJSON
import WharfSystem

/// The one response a request is owed.
///
/// Handlers may answer at once or much later, from any thread; whatever happens first
/// (the handler's answer, `$/cancelRequest`, the connection closing) is the answer, and every
/// later attempt is ignored. That is how "exactly one response per request" holds without
/// handlers coordinating.
public final class Reply: Sendable {
    public let id: RequestID
    public let method: String
    private let answered = Locked(false)
    private let deliver: @Sendable (Result<JSON, ResponseError>) -> Void

    init(id: RequestID, method: String, deliver: @escaping @Sendable (Result<JSON, ResponseError>) -> Void) {
        self.id = id
        self.method = method
        self.deliver = deliver
    }

    /// True once an answer has gone out (or been claimed by cancellation).
    public var isAnswered: Bool { answered.withValue { $0 } }

    public func succeed(_ result: JSON) { answer(.success(result)) }
    public func fail(_ error: ResponseError) { answer(.failure(error)) }

    /// Sends `result` unless the request was already answered; returns whether it was sent.
    @discardableResult
    public func answer(_ result: Result<JSON, ResponseError>) -> Bool {
        let first = answered.withValue { answered -> Bool in
            if answered { return false }
            answered = true
            return true
        }
        if first { deliver(result) }
        return first
    }
}
