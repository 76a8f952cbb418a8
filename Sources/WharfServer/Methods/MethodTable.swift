import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// Every request method the server answers, keyed by its protocol type: what a method takes
/// and returns is that type (in WharfProtocol), and what it does is the handler registered for
/// it here, one `…Methods.swift` file per area. Dispatch is one dictionary lookup.
///
/// A handler never parses or builds JSON: the table reads the params into the request type
/// (a mismatch is -32602 naming the field; unknown fields are logged with the field they most
/// likely meant) and writes the handler's typed result. Errors a handler throws are turned
/// into protocol errors in one place (``ResponseError/init(answering:logger:)``).
struct MethodTable: Sendable {
    typealias Entry = @Sendable (ClientSession, Request, Reply) -> Void
    private var entries: [String: Entry] = [:]

    /// The methods registered, for the test that holds the table to the catalog.
    var methods: Set<String> { Set(entries.keys) }

    /// A method answered on the read loop, for work that touches neither the disk, nor a
    /// database, nor another process: answering at once costs no thread hop.
    mutating func onReadLoop<R: RequestMessage>(
        _ type: R.Type, _ body: @escaping @Sendable (ClientSession, R) throws -> R.Result
    ) {
        add(type) { session, request, answer in answer.succeed(try body(session, request)) }
    }

    /// A method whose work may wait (disk, SQLite): `body` runs on one of the session's work
    /// queues (``WorkQueue``), in the order the client sent its requests (a `writeFile` then a
    /// `readFile` pipelined behind it see each other), off the read loop, so other clients and
    /// this client's `ping` and `cancel` never wait behind it. `reserving`
    /// estimates the answer's size, promised against the client's output budget on the read
    /// loop before the work starts: a client that asks for many large answers and reads none
    /// stops being read from instead of filling our memory.
    mutating func onWorker<R: RequestMessage>(
        _ type: R.Type, on queue: WorkQueue, reserving estimate: (@Sendable (R) -> Int)? = nil,
        _ body: @escaping @Sendable (ClientSession, R) throws -> R.Result
    ) {
        add(type) { session, request, answer in
            if let estimate { try answer.reserve(bytes: estimate(request)) }
            session.run(on: queue) {
                // A batch whose answers already fill the output budget would throw this one's
                // away: it is refused unrun (in client order, as the queue runs them).
                if let refusal = answer.refusalForAFullBatch { return answer.fail(refusal) }
                answer.run { try body(session, request) }
            }
        }
    }

    /// A method that answers through ``Answer`` when something else is ready: the engine
    /// announcing a dialog, a presenter's input being accepted.
    mutating func answeredLater<R: RequestMessage>(
        _ type: R.Type, _ body: @escaping @Sendable (ClientSession, R, Answer<R.Result>) throws -> Void
    ) {
        add(type, body)
    }

    private mutating func add<R: RequestMessage>(
        _ type: R.Type, _ body: @escaping @Sendable (ClientSession, R, Answer<R.Result>) throws -> Void
    ) {
        precondition(entries[R.method] == nil, "method \(R.method) registered twice")
        precondition(R.direction == .clientToServer, "\(R.method) is sent by the server, not answered by it")
        entries[R.method] = { session, request, reply in
            let answer = Answer<R.Result>(reply: reply, logger: session.logger)
            let message: R
            do throws(ProtocolError) {
                let (parsed, unknown) = try R.parse(request.params)
                session.warnAbout(unknown, in: R.method)
                message = parsed
            } catch {
                reply.fail(.invalidParams(error.message))
                return
            }
            do {
                try body(session, message, answer)
            } catch {
                answer.fail(error)
            }
        }
    }

    /// Answers `request` with its method's handler, or -32601.
    func dispatch(_ request: Request, _ reply: Reply, session: ClientSession) {
        guard let entry = entries[request.method] else {
            reply.fail(.methodNotFound(request.method))
            return
        }
        entry(session, request, reply)
    }

    /// All methods, built once per process.
    static let standard: MethodTable = {
        var table = MethodTable()
        table.addLifecycleMethods()
        table.addContentTypeMethods()
        table.addDialogMethods()
        table.addPresenterMethods()
        table.addAccessMethods()
        return table
    }()
}

/// Which of a session's work queues a method runs on.
enum WorkQueue {
    /// Presenting, listing, choosing.
    case dialogs
    /// Access, bookmarks, reads and writes, identification.
    case files
}

/// The one answer a request is owed, typed by its method's result.
struct Answer<Result: ProtocolValue>: Sendable {
    let reply: Reply
    let logger: Logger

    func succeed(_ result: Result) { reply.succeed(result.json) }

    /// Answers with the protocol error for `error`.
    func fail(_ error: any Error) { reply.fail(ResponseError(answering: error, logger: logger)) }

    /// Answers with what `body` returns, or with the protocol error for what it throws.
    func run(_ body: () throws -> Result) {
        do {
            succeed(try body())
        } catch {
            fail(error)
        }
    }

    /// See ``Reply/reserve(bytes:)``.
    func reserve(bytes: Int) throws(ResponseError) { try reply.reserve(bytes: bytes) }

    /// See ``Reply/refusalForAFullBatch``.
    var refusalForAFullBatch: ResponseError? { reply.refusalForAFullBatch }
}
