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
    /// Whether it was answered, and the output budget promised to the answer (`reserve`),
    /// given back when it is written. One lock for both: a reply is made per request.
    private let state = Locked((answered: false, reserved: 0))
    private let deliver: @Sendable (Result<JSON, ResponseError>, _ releasing: Int) -> Void
    private let promise: @Sendable (Int) throws(ResponseError) -> Int
    /// For a request of a batch: the refusal it is to get, if the batch's answers already
    /// fill the output budget when its work is about to start.
    private let batchRefusal: @Sendable () -> ResponseError?

    init(id: RequestID, method: String, promise: @escaping @Sendable (Int) throws(ResponseError) -> Int,
         batchRefusal: @escaping @Sendable () -> ResponseError? = { nil },
         deliver: @escaping @Sendable (Result<JSON, ResponseError>, _ releasing: Int) -> Void) {
        self.id = id
        self.method = method
        self.promise = promise
        self.batchRefusal = batchRefusal
        self.deliver = deliver
    }

    /// In a batch whose answers already fill the output budget, the -32600 this request is to
    /// be answered with instead of being run (its answer could only be thrown away); nil when
    /// it may run. Asked by work that waited its turn (a worker), just before it starts.
    public var refusalForAFullBatch: ResponseError? { batchRefusal() }

    /// Promises the output budget room for an answer of about `bytes`, before the work that
    /// produces it starts. Called on the read loop, it waits while the peer has too much
    /// unread output, which is how a peer that asks for a lot and reads nothing stops being
    /// read from. Once per request. In a batch it never waits, and holds the room only when the
    /// batch has it: an estimate is a bound (a `readFile` promises its whole `length`, however
    /// short the file), so the batch judges the answer itself when it comes.
    public func reserve(bytes: Int) throws(ResponseError) {
        let held = try promise(bytes)
        state.withValue { $0.reserved += held }
    }

    /// True once an answer has gone out (or been claimed by cancellation).
    public var isAnswered: Bool { state.withValue { $0.answered } }

    public func succeed(_ result: JSON) { answer(.success(result)) }
    public func fail(_ error: ResponseError) { answer(.failure(error)) }

    /// Sends `result` unless the request was already answered; returns whether it was sent.
    @discardableResult
    public func answer(_ result: Result<JSON, ResponseError>) -> Bool {
        let reserved = state.withValue { state -> Int? in
            if state.answered { return nil }
            state.answered = true
            return state.reserved
        }
        if let reserved { deliver(result, reserved) }
        return reserved != nil
    }
}
