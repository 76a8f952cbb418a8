import WharfJSON
import WharfSystem

/// One JSON-RPC 2.0 peer over a pair of file descriptors.
///
/// The connection owns everything that is JSON-RPC and nothing that is Wharf: framing,
/// validation of messages, batches, matching responses to the requests we sent, and
/// `$/cancelRequest`. Requests and notifications are handed to the handler on the read loop's
/// thread, in stream order; a handler that has to wait (on disk, on the peer) answers its
/// `Reply` later from any thread, and the read loop goes on meanwhile.
///
/// `@unchecked Sendable`: `writer` is set once, in `init`, before the connection is shared; everything that changes afterwards is in `state` (a `WaitableValue`) or a `Locked`.
public final class Connection: @unchecked Sendable {
    public struct Options: Sendable {
        public var framing: FramingMode = .auto
        /// Longer messages are discarded unread and answered with -32600.
        public var maxMessageBytes = 64 * 1024 * 1024
        /// Messages holding more values than this are refused unparsed (-32600): parsed, each
        /// value costs some 60 times its text (``JSON/holdsMoreValues(than:in:)``).
        public var maxMessageValues = 250_000
        /// Shared with other connections (the daemon's, of one app): what their unfinished
        /// messages may hold together; nil for no limit but `maxMessageBytes`.
        public var inputBudget: ByteBudget?
        /// Reading pauses while more than this is waiting to be written.
        public var backlogLimit = 16 * 1024 * 1024
        /// Reading pauses while this many requests from the peer wait for their answers.
        public var maxPendingRequests = 256
        /// The descriptors are non-blocking and this connection's alone (a daemon's sockets,
        /// the pipes a bridge hands over): writing never blocks a thread (a full output waits
        /// for room in ``ReadinessWatcher``), so a peer that stops reading holds no thread.
        /// (Reading waits in `poll(2)` either way, which ``stopReading()`` interrupts.)
        public var nonBlocking = false
        /// The input is a Unix socket over which the peer may pass descriptors (``descriptors``).
        public var passesDescriptors = false

        public init(framing: FramingMode = .auto, maxMessageBytes: Int = 64 * 1024 * 1024) {
            self.framing = framing
            self.maxMessageBytes = maxMessageBytes
        }
    }

    /// Why the read loop stopped.
    public enum EndReason: Sendable, Equatable {
        /// The peer closed its end cleanly, between messages.
        case endOfInput
        /// The input ended in the middle of a message.
        case truncated
        case readFailed(SystemError)
        /// Our output was closed by the peer (EPIPE) or failed otherwise.
        case writeFailed(SystemError)
        /// ``stopReading()`` was called (the session ended: `exit`, a signal, its host).
        case stopped
    }

    /// What a handler sees. Called on the read loop's thread.
    public struct Handler: Sendable {
        public var request: @Sendable (Request, Reply) -> Void
        public var notification: @Sendable (Notification) -> Void

        public init(request: @escaping @Sendable (Request, Reply) -> Void, notification: @escaping @Sendable (Notification) -> Void) {
            self.request = request
            self.notification = notification
        }
    }

    public let logger: Logger
    /// Closed when the read loop ends.
    private let input: FileDescriptor
    /// Watched by the read loop for failure; owned and closed by the writer.
    private let output: FileDescriptor
    private let options: Options
    private var writer: MessageWriter!
    private let state = WaitableValue(SharedState())
    /// Observes traffic, for `$/logTrace`.
    public let tracer = Locked<(@Sendable (TraceEvent) -> Void)?>(nil)
    /// What the peer passed over the socket, when ``Options/passesDescriptors``.
    public let descriptors: PassedDescriptors?
    /// Wakes the read loop waiting for input (``stopReading()``, or our output failing).
    private let interrupter: Interrupter?

    private struct SharedState {
        /// Requests from the peer not yet answered, so `$/cancelRequest` can answer them.
        var incoming: [RequestID: Reply] = [:]
        /// Answers taken out of `incoming` and not yet queued for writing: the session's end
        /// waits for these too, or one queued just after the output closed would be lost.
        var answersBeingQueued = 0
        /// Batches whose array has not gone out yet, so the session's end can send what they hold.
        var unsentBatches: [ObjectIdentifier: BatchCollector] = [:]
        /// Requests we sent, waiting for the peer's response.
        var outgoing: [RequestID: @Sendable (Result<JSON, ResponseError>) -> Void] = [:]
        var nextOutgoingID: Int64 = 1
        var ended: EndReason?
        var writeFailure: SystemError?
        /// `stopReading()` was called: the loop ends after the message in hand.
        var stopRequested = false
        /// Requests read and not yet answered, against ``Options/maxPendingRequests``.
        var pendingRequests = 0
    }

    /// Takes ownership of both descriptors: `input` is closed when the read loop ends, `output`
    /// by ``closeOutput()``.
    public init(input: FileDescriptor, output: FileDescriptor, options: Options = Options(), logger: Logger = .silent) {
        self.input = input
        self.output = output
        self.options = options
        self.logger = logger
        self.descriptors = options.passesDescriptors ? PassedDescriptors(logger: logger) : nil
        self.interrupter = try? Interrupter()
        self.writer = MessageWriter(descriptor: output, backlogLimit: options.backlogLimit, nonBlocking: options.nonBlocking) { [weak self] error in
            self?.outputFailed(error)
        }
        if case .lsp = options.framing { writer.setFraming(.lsp) }
        if case .ndjson = options.framing { writer.setFraming(.ndjson) }
    }

    // MARK: Reading

    /// Reads and dispatches until the input ends or ``stopReading()`` is called. Blocks the
    /// calling thread; closes the input when it returns.
    public func run(_ handler: Handler) -> EndReason {
        defer {
            input.close()
            descriptors?.closeAll()
        }
        input.growPipeBuffer(to: Self.pipeCapacity)
        var decoder = FrameDecoder(mode: options.framing, maxMessageBytes: options.maxMessageBytes)
        var framingKnown = decoder.framing != nil
        let capacity = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var reason: EndReason
        /// What this connection's unfinished message counts against `options.inputBudget`.
        var counted = 0
        defer { _ = options.inputBudget?.move(from: counted, to: 0) }
        /// Counts what is left unfinished against the budget, or throws it away when the
        /// budget has no room for it.
        func countUnfinishedInput() {
            guard let budget = options.inputBudget else { return }
            if budget.move(from: counted, to: decoder.bufferedBytes) {
                counted = decoder.bufferedBytes
                return
            }
            decoder.abandonPartialMessage()
            _ = budget.move(from: counted, to: decoder.bufferedBytes)
            counted = decoder.bufferedBytes
            logger.warning("discarded an unfinished message: this app's unfinished messages would hold more than \(budget.limit) bytes")
            answerUnreadable(.invalidRequest(
                "a message was discarded unfinished: this app's unfinished messages, on all its connections, may hold at most \(budget.limit) bytes"))
        }
        /// Replies use the client's framing from the moment the decoder has seen it, which can be
        /// before any message is complete (and, for a last NDJSON line without its newline, only
        /// at the end of input).
        func adoptFramingOnce() {
            guard !framingKnown, let framing = decoder.framing else { return }
            framingKnown = true
            writer.setFraming(framing)
            logger.debug("framing: \(framing.rawValue)")
        }
        reading: while true {
            writer.waitForRoom()
            if let stop = stopReason() {
                reason = stop
                break
            }
            let count: Int
            do {
                guard let read = try read(into: buffer) else { continue reading }
                count = read
            } catch {
                reason = .readFailed(error)
                break
            }
            if count == 0 {
                if let last = decoder.finish() {
                    adoptFramingOnce()
                    process(last, handler)
                }
                reason = decoder.hasPartialFrame ? .truncated : .endOfInput
                break
            }
            decoder.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            writer.cork()
            defer { writer.uncork() }
            while let event = decoder.next() {
                adoptFramingOnce()
                process(consume event, handler)
                if stopReason() != nil { continue reading }
                waitForRequestRoom()
                waitForOutputRoom()
            }
            countUnfinishedInput()
        }
        end(reason)
        return reason
    }

    /// One read, once `poll` says input is there (nil when there was none after all, or the
    /// wait was interrupted: ``stopReading()``, or a write on another thread found the output
    /// closed, while the peer still holds our input open and sends nothing).
    private func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        switch Readiness.waitForInput(input, or: interrupter, watching: output) {
        case .input:
            break
        case .interrupted:
            return nil
        case .outputFailed(let error):
            // The peer stopped reading us while nothing was being written: a session nobody
            // hears ends now, as if a write had found the output closed, not at its next write.
            outputFailed(error)
            return nil
        }
        guard options.nonBlocking else { return try input.read(into: buffer) }
        guard let descriptors else { return try input.readAvailable(into: buffer) }
        var passed: [FileDescriptor] = []
        var lost = false
        let count = try input.receive(into: buffer, descriptors: &passed, lostDescriptors: &lost)
        if !passed.isEmpty { descriptors.add(passed) }
        if lost {
            logger.warning("the peer passed more than \(FileDescriptor.maximumDescriptorsPerRead) descriptors at once; the rest were dropped")
        }
        return count
    }

    /// Holds the read loop while the peer has ``Options/maxPendingRequests`` requests waiting
    /// for answers: a client that asks faster than its requests are answered stops being read
    /// from, instead of queueing work without end. What the loop wrote so far goes out first.
    private func waitForRequestRoom() {
        let limit = options.maxPendingRequests
        guard state.withValue({ $0.pendingRequests >= limit }) else { return }
        writer.uncork()
        state.wait { $0.pendingRequests < limit || $0.stopRequested ? () : nil }
        writer.cork()
    }

    /// Holds the read loop, between two messages of one chunk of input, while the peer has more
    /// output unread than its budget: a chunk of small requests with large answers (say
    /// `contentTypes/describe`, answered on the loop itself) would otherwise all be answered
    /// before the loop's next read waits. What the loop wrote so far goes out first.
    private func waitForOutputRoom() {
        guard writer.isOverBudget else { return }
        writer.uncork()
        writer.waitForRoom()
        writer.cork()
    }

    private func requestAnswered() {
        state.change { $0.pendingRequests -= 1 }
    }

    /// Why the loop must stop before reading more, if it must.
    private func stopReason() -> EndReason? {
        state.withValue { state in
            if let failure = state.writeFailure { return .writeFailed(failure) }
            return state.stopRequested ? .stopped : nil
        }
    }

    /// Ends the read loop after the message it is handling (called from a handler, on the loop's
    /// own thread) or before its next read; a loop waiting for input stops waiting.
    public func stopReading() {
        state.change { $0.stopRequested = true }
        interrupter?.signal()
    }

    /// What an unprivileged process may ask for by default (`/proc/sys/fs/pipe-max-size`).
    ///
    /// With a pipe's default 64 KiB, a client sending a large document and this loop take turns
    /// a few pages at a time, a wake-up each; 1 MiB lets both sides move more per system call
    /// (bench/notes/40). The kernel only holds the pages while the bytes wait in the pipe.
    private static let pipeCapacity: Int32 = 1 << 20

    /// Runs the read loop on a thread of its own; `onEnd` is called there when it stops.
    public func start(_ handler: Handler, onEnd: @escaping @Sendable (EndReason) -> Void) {
        startThread { [self] in
            let reason = run(handler)
            onEnd(reason)
        }
    }

    /// Takes the event over so that a message's bytes are released once parsed, before it is
    /// handled (a large document would otherwise stay in memory, as text, while it is written).
    private func process(_ event: consuming FrameEvent, _ handler: Handler) {
        switch consume event {
        case .message(let body):
            // A message of fewer bytes than the limit cannot hold more values than it.
            if body.count > options.maxMessageValues,
               body.withUnsafeBytes({ JSON.holdsMoreValues(than: options.maxMessageValues, in: $0) }) {
                logger.warning("discarded a message of \(body.count) bytes holding more than \(options.maxMessageValues) JSON values")
                answerUnreadable(.invalidRequest(
                    "a message holding more than \(options.maxMessageValues) JSON values is refused unread"))
                return
            }
            let json: JSON
            do {
                json = try JSON.parse(consume body)
            } catch {
                logger.warning("invalid JSON (\(error)); answered -32700")
                answerUnreadable(.parseError("invalid JSON: \(error)"))
                return
            }
            if case .array(let elements) = json {
                processBatch(elements, handler)
            } else {
                dispatch(IncomingMessage(json), handler, into: nil)
            }
        case .oversized(let length):
            logger.warning("discarded a message of \(length) bytes (limit \(options.maxMessageBytes))")
            answerUnreadable(.invalidRequest(
                "message of \(length) bytes exceeds the limit of \(options.maxMessageBytes) bytes (--max-message-bytes)"))
        case .skipped(let reason):
            logger.warning("skipped bytes that are not a frame: \(reason)")
        }
    }

    private func processBatch(_ elements: [JSON], _ handler: Handler) {
        guard !elements.isEmpty else {
            answerUnreadable(.invalidRequest("an empty batch"))
            return
        }
        let batch = BatchCollector(limit: options.backlogLimit, writer: writer) { [weak self] batch, responses, held in
            guard let self else { return }
            state.withValue { _ = $0.unsentBatches.removeValue(forKey: ObjectIdentifier(batch)) }
            if responses.isEmpty {
                writer.release(held)
            } else {
                write(OutgoingMessage.batch(responses), releasing: held)
            }
        }
        state.withValue { $0.unsentBatches[ObjectIdentifier(batch)] = batch }
        for element in elements {
            // A batch's requests count against `maxPendingRequests` one by one, as if each came
            // alone (its answers go out only together, so waiting for output room here could
            // wait for this very batch: the collector keeps it within the budget instead).
            waitForRequestRoom()
            dispatch(IncomingMessage(element), handler, into: batch)
        }
        batch.seal()
    }

    /// Handles one message; replies go straight out, or into `batch` when it is part of one.
    private func dispatch(_ message: IncomingMessage, _ handler: Handler, into batch: BatchCollector?) {
        switch message {
        case .request(let request):
            trace(.receivedRequest(request))
            // Answers are matched to requests by id: a second request under the id of one still
            // waiting could be told apart from it by neither the peer nor `$/cancelRequest`.
            // (Only the read loop adds to `incoming`, so the id cannot be taken in between.)
            if state.withValue({ $0.incoming[request.id] != nil }) {
                let error = ResponseError.invalidRequest("request id \(request.id) is already in use by a request still waiting for its answer")
                dispatch(.invalid(error, id: request.id), handler, into: batch)
                return
            }
            batch?.expect()
            state.withValue { $0.pendingRequests += 1 }
            let reply = Reply(id: request.id, method: request.method, promise: { [weak self] bytes throws(ResponseError) in
                guard let self else { return 0 }
                guard let batch else { writer.reserve(bytes); return bytes }
                return batch.hold(bytes)
            }, batchRefusal: { [batch] in batch?.isFull == true ? batch?.overBudget : nil }) { [weak self] result, reservation in
                guard let self else { return }
                self.requestAnswered()
                self.state.withValue { state in
                    state.incoming.removeValue(forKey: request.id)
                    state.answersBeingQueued += 1
                }
                defer { self.state.change { $0.answersBeingQueued -= 1 } }
                var result = result
                let response: [UInt8]
                switch result {
                case .success(let value): response = OutgoingMessage.response(id: request.id, result: value)
                case .failure(let error): response = OutgoingMessage.response(id: request.id, error: error)
                }
                if let batch {
                    let fitted = batch.add(response, replacing: reservation) {
                        OutgoingMessage.response(id: request.id, error: batch.overBudget)
                    }
                    if !fitted { result = .failure(batch.overBudget) }
                    self.trace(.sentResponse(id: request.id, method: request.method, result: result))
                } else {
                    self.trace(.sentResponse(id: request.id, method: request.method, result: result))
                    self.write(response, releasing: reservation)
                }
            }
            state.withValue { $0.incoming[request.id] = reply }
            handler.request(request, reply)
        case .notification(let notification):
            trace(.receivedNotification(notification))
            if notification.method == "$/cancelRequest" {
                cancelIncoming(notification.params)
            } else {
                handler.notification(notification)
            }
        case .response(let id, let result):
            let completion = state.withValue { $0.outgoing.removeValue(forKey: id) }
            if let completion {
                completion(result)
            } else {
                logger.warning("a response to request \(id), which we did not send or which was already answered")
            }
        case .invalid(let error, let id):
            logger.warning("invalid request: \(error.message)")
            trace(.sentResponse(id: id, method: nil, result: .failure(error)))
            let response = OutgoingMessage.response(id: id, error: error)
            if let batch {
                batch.expect()
                batch.add(response, replacing: 0) { response }  // a refusal is short: it always goes
            } else {
                write(response)
            }
        case .strayResponse(let reason):
            logger.warning("ignored \(reason)")
        }
    }

    /// `$/cancelRequest {id}`: a request still pending is answered -32800 now; the handler's
    /// own answer, when it comes, is dropped. Unknown ids are ignored, as the LSP says.
    private func cancelIncoming(_ params: JSON?) {
        guard let idValue = params?["id"], let id = RequestID(json: idValue) else {
            logger.warning("$/cancelRequest without a valid id")
            return
        }
        let reply = state.withValue { $0.incoming[id] }
        reply?.fail(ResponseError(.requestCancelled, "request \(id) was cancelled"))
    }

    // MARK: Writing

    private func write(_ message: [UInt8], releasing reservation: Int = 0) {
        writer.write(message, releasing: reservation)
    }

    /// Runs `body` with this connection's writes held back, then sends them together from the
    /// calling thread: a worker answering one request writes its answer and the events it
    /// caused itself, instead of waking another thread to. (The read loop does the same for each
    /// chunk of input.)
    public func batchingWrites<T>(_ body: () throws -> T) rethrows -> T {
        writer.beginBatch()
        defer { writer.endBatch() }
        return try body()
    }

    /// Bytes of output queued or promised right now (for tests of the budget).
    public var outstandingOutputBytes: Int { writer.outstandingBytes }

    /// Sends a notification to the peer. Notifications keep the order in which they are sent.
    public func send(notification method: String, params: JSON?) {
        trace(.sentNotification(method: method, params: params))
        write(OutgoingMessage.notification(method: method, params: params))
    }

    /// Sends a notification serialised beforehand (``PreparedNotification``), with `charge`
    /// held until it has been written whole or dropped with the connection's output.
    public func send(_ notification: PreparedNotification, charging charge: BudgetCharge? = nil) {
        trace(.sentNotification(method: notification.method, params: notification.params))
        writer.write(notification.body, charge: charge)
    }

    /// Sends a request to the peer; `onReply` gets its response, or an error if the connection
    /// ends first. Returns the id used.
    @discardableResult
    public func send(request method: String, params: JSON?, onReply: @escaping @Sendable (Result<JSON, ResponseError>) -> Void) -> RequestID {
        let id: RequestID? = state.withValue { state in
            guard state.ended == nil else { return nil }
            let id = RequestID.int(state.nextOutgoingID)
            state.nextOutgoingID += 1
            state.outgoing[id] = onReply
            return id
        }
        guard let id else {
            onReply(.failure(Self.closedError))
            return .null
        }
        trace(.sentRequest(id: id, method: method, params: params))
        write(OutgoingMessage.request(id: id, method: method, params: params))
        return id
    }

    /// Stops waiting for the response to `id` (the answer, if it comes, is ignored).
    public func abandon(request id: RequestID) {
        state.withValue { _ = $0.outgoing.removeValue(forKey: id) }
    }

    /// Waits until every request from the peer has been answered (or `seconds` pass), woken as
    /// each answer is queued (the changes `state.change` makes): what is
    /// in flight finishes before the process ends. A request still unanswered then (one waiting
    /// for a database another process holds locked, say) is answered `-32800`, as a cancelled
    /// one is, so that none goes unanswered; its handler's own answer, if it comes, is dropped.
    /// Then a batch still incomplete (the session ended in its midst: `exit` in it, a signal)
    /// goes with the answers it has, as its array.
    public func waitForPendingReplies(seconds: Double) {
        let deadline = Deadline(secondsFromNow: seconds)
        _ = state.wait(until: deadline) { $0.incoming.isEmpty && $0.answersBeingQueued == 0 ? () : nil }
        for reply in state.withValue({ Array($0.incoming.values) }) {
            reply.fail(ResponseError(.requestCancelled,
                                     "the session ended before request \(reply.id) (\(reply.method)) was answered"))
        }
        for batch in state.withValue({ Array($0.unsentBatches.values) }) { batch.sendAnswered() }
    }

    /// Waits until everything sent so far is written (or `seconds` pass).
    @discardableResult
    public func flush(seconds: Double = 5) -> Bool { writer.flush(seconds: seconds) }

    /// Writes nothing more, ever: the session this connection served has ended.
    public func closeOutput() { writer.close() }

    /// The error every request still waiting on the peer gets when the connection ends.
    public static let closedError = ResponseError(.internalError, "the connection closed before the peer answered")

    private func outputFailed(_ error: SystemError) {
        logger.warning("output closed: \(error)")
        state.withValue { $0.writeFailure = error }
        // The read loop may be waiting for input that never comes: it must end now.
        interrupter?.signal()
    }

    /// Marks the end and fails every request we are still waiting on.
    private func end(_ reason: EndReason) {
        let waiting = state.withValue { state -> [@Sendable (Result<JSON, ResponseError>) -> Void] in
            state.ended = reason
            let waiting = Array(state.outgoing.values)
            state.outgoing.removeAll()
            return waiting
        }
        for completion in waiting { completion(.failure(Self.closedError)) }
    }

    private func trace(_ event: TraceEvent) {
        if let tracer = tracer.withValue({ $0 }) { tracer(event) }
    }

    /// Answers input that could not be read as a message (`-32700`, or `-32600` for one
    /// refused unread), with `"id": null`; traced like every other answer.
    private func answerUnreadable(_ error: ResponseError) {
        trace(.sentResponse(id: .null, method: nil, result: .failure(error)))
        write(OutgoingMessage.response(id: .null, error: error))
    }
}

/// A notification serialised before it is sent, so that its size is known before anything is
/// promised on it: the daemon counts a `presenter/show` against the app's budget, or refuses
/// the dialog, before the app is told the dialog exists.
public struct PreparedNotification: Sendable {
    public let method: String
    /// Kept for `$/logTrace`, which reports what is sent.
    let params: JSON?
    let body: [UInt8]
    /// The serialised message's length (its framing not counted).
    public var byteCount: Int { body.count }

    public init(method: String, params: JSON?) {
        self.method = method
        self.params = params
        self.body = OutgoingMessage.notification(method: method, params: params)
    }
}

/// Gathers the responses of one batch and sends them together, as one array, once every
/// request in it has been answered (``sendAnswered()`` sends them sooner). A batch of
/// notifications only is sent as no responses, which the connection does not write.
///
/// What a batch collects counts against the connection's output budget until its array is
/// written: the reservations of its requests still being worked on, then their answers. A
/// batch's answers cannot go out one by one to make room, so a batch is kept within the budget
/// (`limit`) instead: an answer that would take the answers already in the batch past it is
/// replaced by ``overBudget`` (the first answer always goes, and so does one no longer than
/// that refusal). Answers are judged by their own size, not by the estimates reserved for
/// answers still being prepared: those are bounds (a `readFile` of a 5-byte file reserves its
/// whole 16 MiB `length`), and judged by them a `ping` beside a small `readFile` would be
/// refused.
final class BatchCollector: Sendable {
    private struct State {
        var expected = 0
        var responses: [[UInt8]] = []
        var sealed = false
        var sent = false
        /// Bytes counted against the writer's budget for this batch.
        var held = 0
        /// Bytes of the answers added so far: what the batch's array will hold.
        var answered = 0
    }

    private let state = Locked(State())
    private let limit: Int
    private let writer: MessageWriter
    /// Called once, with the batch, its responses and the bytes it holds against the budget.
    private let send: @Sendable (BatchCollector, [[UInt8]], _ held: Int) -> Void

    init(limit: Int, writer: MessageWriter, send: @escaping @Sendable (BatchCollector, [[UInt8]], _ held: Int) -> Void) {
        self.limit = limit
        self.writer = writer
        self.send = send
    }

    /// The answer to a request that would take its batch past the output budget.
    var overBudget: ResponseError {
        .invalidRequest("this request's answer would take its batch's answers past \(limit) bytes "
            + "(--max-output-bytes-per-client); send it alone or in a smaller batch")
    }

    func expect() { state.withValue { $0.expected += 1 } }

    /// Whether the answers already added fill the budget: a request whose work has not started
    /// is then refused rather than run for an answer that would be thrown away (a batch of a
    /// thousand 16 MiB `readFile`s reads one file, not a thousand).
    var isFull: Bool { state.withValue { $0.answered >= limit } }

    /// Holds room for an answer of about `bytes` still to be worked on, and answers what it
    /// held: `bytes`, or nothing when the batch would then hold more than the budget (and holds
    /// something already). Never waits, never refuses: the answer is judged when it comes.
    func hold(_ bytes: Int) -> Int {
        state.withValue { state in
            guard state.held == 0 || state.held + bytes <= limit else { return 0 }
            state.held += bytes
            writer.hold(bytes)
            return bytes
        }
    }

    /// Adds an answer, in place of the `reserved` bytes held for it; when it would take the
    /// answers already added past the budget (and there are some, and it is longer than the
    /// refusal), adds `overBudget`'s short error instead and answers false. Judged and added in one step, so that answers arriving
    /// together cannot each find room that only one of them has.
    /// (Once the batch has gone, an answer is dropped, as the session's output is.)
    @discardableResult
    func add(_ response: [UInt8], replacing reserved: Int, overBudget: () -> [UInt8]) -> Bool {
        let fitted = state.withValue { state -> Bool in
            if state.sent {
                writer.release(reserved)
                return true
            }
            let refusal = overBudget()
            let fits = state.answered == 0 || state.answered + response.count <= limit || response.count <= refusal.count
            let added = fits ? response : refusal
            state.responses.append(added)
            state.answered += added.count
            state.held += added.count - reserved
            writer.hold(added.count - reserved)
            return fits
        }
        sendIfComplete()
        return fitted
    }

    /// Called once every element has been dispatched.
    func seal() {
        state.withValue { $0.sealed = true }
        sendIfComplete()
    }

    private func sendIfComplete() {
        sendOnce { $0.sealed && $0.responses.count == $0.expected }
    }

    /// The session ends before every request of the batch was answered, or before it was all
    /// read: the answers it has go now; any later one is dropped, as the session's output is.
    func sendAnswered() {
        sendOnce { _ in true }
    }

    private func sendOnce(when ready: (State) -> Bool) {
        let sending: (responses: [[UInt8]], held: Int)? = state.withValue { state in
            guard !state.sent, ready(state) else { return nil }
            state.sent = true
            return (state.responses, state.held)
        }
        if let sending { send(self, sending.responses, sending.held) }
    }
}

/// Traffic as `$/logTrace` reports it.
public enum TraceEvent: Sendable {
    case receivedRequest(Request)
    case receivedNotification(Notification)
    /// `method` is nil for an answer to what was not a request (not JSON, an invalid request).
    case sentResponse(id: RequestID, method: String?, result: Result<JSON, ResponseError>)
    case sentNotification(method: String, params: JSON?)
    case sentRequest(id: RequestID, method: String, params: JSON?)
}
