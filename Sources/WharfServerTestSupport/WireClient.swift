import Glibc
import WharfTestSupport
import WharfJSON
import WharfJSONRPC
import WharfServer
import WharfSystem

/// A test's end of a connection to a Wharf server: writes framed (or raw) bytes, and collects
/// every message the server writes, in order, on a reader thread.
///
/// It knows the wire and nothing else, so tests say exactly what goes over it. Every message
/// received is checked against `schema` (for a Wharf server, `protocol/wharf.schema.json`) and
/// passes through `inspect` before a test sees it. What breaks the protocol is recorded as a
/// Swift Testing issue of the running test the next time the test calls this client (see
/// `reportNewProblems`), so a wire test cannot pass while the server breaks the schema.
///
/// `@unchecked Sendable`: what it received and its counters are only touched with `lock` held; the descriptors are set in `init`.
public final class WireClient: @unchecked Sendable {
    public enum Server {
        case process(ChildProcess)
        case inProcess(InProcessServer)
        /// Some other peer on the given descriptors (a bare `Connection` in transport tests).
        case descriptors
        /// A daemon, over a Unix socket this client connected (one descriptor both ways).
        case socket
    }

    public let server: Server
    public let framing: Framing

    /// The spawned binary, when this client talks to one (`try #require(client.process)`).
    public var process: ChildProcess? {
        if case .process(let child) = server { return child }
        return nil
    }

    /// The in-process server, when this client talks to one.
    public var inProcessServer: InProcessServer? {
        if case .inProcess(let server) = server { return server }
        return nil
    }
    private let output: Int32
    private let input: Int32
    /// Whether `output` may still be written. Every write, and every close of `output`, happens
    /// holding it: a descriptor number written after it was closed may already name another
    /// test's file (a pipe into another test's server, which then answers a request it never
    /// sent), and tests run in parallel in one process. Not `lock`, which the reader needs to
    /// deliver what the server writes while a write waits for room.
    private let writable = Locked(true)
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var received: [JSON] = []
    /// Messages already handed to the test, by index; `nextMessage` skips them.
    private var taken = Set<Int>()
    private var cursor = 0
    private var endOfOutput = false
    private var problems: [String] = []
    private var nextID: Int64 = 1000
    private var outputClosed = false
    /// `.socket`: the descriptor was closed (after the reader saw the end).
    private var socketClosed = false
    /// The method of every request this client sent, by id, so a response can be checked
    /// against the result schema of the method it answers.
    private var methodsByID: [JSON: String] = [:]
    /// How many of `problems` have been recorded as issues already.
    private var reportedProblems = 0

    /// What every message the server sends is checked against; nil checks nothing.
    public let schema: ProtocolSchema?

    /// Called for every message the server sends; returns problems (schema violations).
    nonisolated(unsafe) public static var inspect: (@Sendable (JSON) -> [String])?

    /// Spawns the built `wharf` binary with `arguments`. Unless `environment` says otherwise,
    /// its state lives in a fresh `XDG_STATE_HOME`, so tests never touch the user's own store.
    public static func spawn(
        _ arguments: [String] = [], framing: Framing = .lsp, environment: [String: String] = [:], removing: Set<String> = []
    ) throws -> WireClient {
        var environment = environment
        var stateHome: ScratchDirectory?
        if environment["XDG_STATE_HOME"] == nil {
            let scratch = ScratchDirectory("wharf-state")
            environment["XDG_STATE_HOME"] = scratch.path.description
            stateHome = scratch
        }
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: arguments, environment: environment, removing: removing)
        child.keepAlive = stateHome
        return WireClient(server: .process(child), framing: framing, output: child.stdin, input: child.stdout, schema: .wharf)
    }

    /// Serves a session in this process, over real pipes.
    public static func inProcess(_ options: ServerOptions = ServerOptions(), framing: Framing = .lsp) -> WireClient {
        inProcess(InProcessServer(options: options), framing: framing)
    }

    /// A new client of a server already serving others in this process.
    public static func inProcess(sharing server: WharfServer.Server, framing: Framing = .lsp) -> WireClient {
        inProcess(InProcessServer(server: server), framing: framing)
    }

    private static func inProcess(_ server: InProcessServer, framing: Framing) -> WireClient {
        WireClient(server: .inProcess(server), framing: framing, output: server.clientWrites, input: server.clientReads, schema: .wharf)
    }

    /// A client of whatever serves on the other ends of `output` and `input`; pass `schema`
    /// when that is a Wharf server.
    public convenience init(writingTo output: Int32, readingFrom input: Int32, framing: Framing = .lsp, schema: ProtocolSchema? = nil) {
        self.init(server: .descriptors, framing: framing, output: output, input: input, schema: schema)
    }

    init(server: Server, framing: Framing, output: Int32, input: Int32, schema: ProtocolSchema?) {
        self.server = server
        self.schema = schema
        self.framing = framing
        self.output = output
        self.input = input
        signal(SIGPIPE, SIG_IGN)
        // The reader holds the client weakly, between messages: a client the test let go of
        // goes (its `deinit` closes the server's input, so a spawned server exits and its
        // scratch state is removed) instead of living on in a reader blocked in `read` until
        // the test process ends. What owns `input` stays alive until the reader is done with it.
        let owner: (any AnyObject & Sendable)? = switch server {
        case .process(let child): child
        case .inProcess(let server): server
        case .descriptors, .socket: nil
        }
        let isSocket = if case .socket = server { true } else { false }
        startThread { [weak self, input, framing] in
            Self.readLoop(input: input, framing: framing, isSocket: isSocket) { self }
            withExtendedLifetime(owner) {}
        }
    }

    // MARK: Sending

    /// Writes bytes exactly as given; nothing once the server's input is closed.
    public func sendRaw(_ bytes: [UInt8]) {
        writable.withValue { open in
            guard open else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(output, $0.baseAddress! + offset, bytes.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    public func sendRaw(_ text: String) { sendRaw(Array(text.utf8)) }

    /// Frames `body` in this client's framing and writes it.
    public func sendBody(_ body: [UInt8]) {
        rememberMethods(in: body)
        sendRaw(framed(body))
    }

    /// `body` in this client's framing.
    func framed(_ body: [UInt8]) -> [UInt8] {
        switch framing {
        case .lsp: FrameDecoder.header(forBodyLength: body.count) + body
        case .ndjson: body + [0x0A]
        }
    }

    /// Frames `message` and writes it with `descriptors` attached (`SCM_RIGHTS`), over a socket.
    public func send(_ message: JSON, passing descriptors: [FileDescriptor]) throws {
        let body = message.serialized()
        rememberMethods(in: body)
        try writable.withValue { open throws(SystemError) in
            guard open else { throw SystemError(code: EBADF, operation: "sendmsg") }
            let socket = FileDescriptor(taking: output)
            defer { socket.relinquish() }
            try socket.send(framed(body), passing: descriptors)
        }
    }

    public func send(_ message: JSON) { sendBody(message.serialized()) }

    /// Sends a request with a fresh id and returns the id.
    @discardableResult
    public func sendRequest(_ method: String, _ params: JSON? = nil) -> JSON {
        let id: JSON = lock.withLock {
            nextID += 1
            return .int(nextID)
        }
        var message: JSON = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        if let params { message = Self.with(message, "params", params) }
        send(message)
        return id
    }

    public func notify(_ method: String, _ params: JSON? = nil) {
        var message: JSON = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message = Self.with(message, "params", params) }
        send(message)
    }

    /// Sends a request and waits for its response (the whole response object).
    public func request(_ method: String, _ params: JSON? = nil, timeout: Double = 10) -> JSON? {
        let id = sendRequest(method, params)
        return response(to: id, timeout: timeout)
    }

    /// The `result` of a request, or nil if it was answered with an error or not within
    /// `timeout` (``request(_:_:timeout:)`` tells which).
    public func call(_ method: String, _ params: JSON? = nil, timeout: Double = 10) -> JSON? {
        guard let response = request(method, params, timeout: timeout) else { return nil }
        return response["result"]
    }

    /// `initialize` with sensible defaults, then `initialized`.
    @discardableResult
    public func initialize(_ params: JSON = ["clientInfo": ["name": "wharf-tests"]]) -> JSON? {
        let result = call("initialize", params)
        notify("initialized", [:])
        return result
    }

    /// `shutdown`, `exit`, and the exit status.
    public func shutdownAndExit(timeout: Double = 10) -> Int32? {
        _ = request("shutdown")
        notify("exit")
        return waitForExit(timeout: timeout)
    }

    /// Closes the server's input (end of input for the server). Idempotent.
    public func closeInput() {
        let first = lock.withLock { () -> Bool in
            defer { outputClosed = true }
            return !outputClosed
        }
        guard first else { return }
        switch server {
        case .process(let child): writable.withValue { $0 = false; child.closeStdin() }
        case .socket: lock.withLock { if !socketClosed { _ = shutdown(output, Int32(SHUT_WR)) } }
        case .inProcess, .descriptors: writable.withValue { $0 = false; close(output) }
        }
    }

    /// `.socket`: ends the connection both ways at once (a client that goes away without a
    /// word); the reader then sees the end and closes the descriptor.
    public func disconnect() {
        guard case .socket = server else { return closeInput() }
        lock.withLock {
            outputClosed = true
            if !socketClosed { _ = shutdown(output, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: Receiving

    /// The next message not yet handed to the test by any `next…`, `response…` or
    /// `notification…` call, in arrival order.
    public func nextMessage(timeout: Double = 10) -> JSON? {
        defer { reportNewProblems() }
        return lock.withLock {
            let deadline = Deadline(secondsFromNow: timeout)
            while true {
                while cursor < received.count && taken.contains(cursor) { cursor += 1 }
                if cursor < received.count {
                    taken.insert(cursor)
                    return received[cursor]
                }
                if endOfOutput || deadline.hasPassed { return nil }
                lock.wait(until: deadline)
            }
        }
    }

    /// Waits for the first message not yet handed out that `matches`, and hands it out.
    /// Waits for the dialog's ending (`dialog/completed` or `dialog/cancelled`); the wait is a
    /// bound against hanging, generous for the sanitizers' builds.
    public func ending(of dialog: String, timeout: Double = 60) -> JSON? {
        waitFor(timeout: timeout) {
            ($0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled") && $0["params"]?["dialogId"] == .string(dialog)
        }
    }

    public func waitFor(timeout: Double = 10, _ matches: (JSON) -> Bool) -> JSON? {
        defer { reportNewProblems() }
        return lock.withLock {
            let deadline = Deadline(secondsFromNow: timeout)
            var checked = 0
            while true {
                while checked < received.count {
                    if !taken.contains(checked) && matches(received[checked]) {
                        taken.insert(checked)
                        return received[checked]
                    }
                    checked += 1
                }
                if endOfOutput || deadline.hasPassed { return nil }
                lock.wait(until: deadline)
            }
        }
    }

    public func response(to id: JSON, timeout: Double = 10) -> JSON? {
        waitFor(timeout: timeout) { $0["id"] == id && $0["method"] == nil }
    }

    public func notification(_ method: String, timeout: Double = 10, where matches: (JSON) -> Bool = { _ in true }) -> JSON? {
        waitFor(timeout: timeout) { $0["method"] == .string(method) && $0["id"] == nil && matches($0) }
    }

    /// Every message received so far.
    public var messages: [JSON] {
        defer { reportNewProblems() }
        return lock.withLock { received }
    }

    /// Problems found in what the server sent (schema violations, undecodable frames).
    public var protocolProblems: [String] { lock.withLock { problems } }

    /// Waits until the server closes its output.
    @discardableResult
    public func waitForEndOfOutput(timeout: Double = 10) -> Bool {
        defer { reportNewProblems() }
        return lock.withLock {
            let deadline = Deadline(secondsFromNow: timeout)
            while !endOfOutput && !deadline.hasPassed { lock.wait(until: deadline) }
            return endOfOutput
        }
    }

    /// The server's exit status (the process's, or the in-process session's).
    public func waitForExit(timeout: Double = 10) -> Int32? {
        let code: Int32?
        switch server {
        case .process(let child): code = child.waitForExit(seconds: timeout)
        case .inProcess(let server): code = server.waitForExit(seconds: timeout)
        case .descriptors, .socket: code = nil
        }
        // The last messages are checked too: after an exit, output ends at once.
        if code != nil { waitForEndOfOutput(timeout: 1) }
        return code
    }

    /// What the server process wrote to standard error so far (spawned servers only).
    public func standardError() -> String {
        guard case .process(let child) = server else { return "" }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let flags = fcntl(child.stderr, F_GETFL)
        _ = fcntl(child.stderr, F_SETFL, flags | O_NONBLOCK)
        while true {
            let count = read(child.stderr, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func readLoop(input: Int32, framing: Framing, isSocket: Bool, client: () -> WireClient?) {
        var decoder = FrameDecoder(mode: framing == .lsp ? .lsp : .ndjson, maxMessageBytes: Int.max)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(input, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard let client = client() else {
                // Nobody is listening any more; a socket is ours to close (its client is gone,
                // so nothing writes to it).
                if isSocket { close(input) }
                return
            }
            if count <= 0 {
                if let last = decoder.finish() { client.deliver(last) }
                client.outputEnded(insideAFrame: decoder.hasPartialFrame)
                return
            }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            while let event = decoder.next() { client.deliver(event) }
        }
    }

    private func outputEnded(insideAFrame: Bool) {
        lock.withLock {
            if insideAFrame { problems.append(Self.endedInsideAFrame) }
            endOfOutput = true
            if case .socket = server {
                socketClosed = true
                writable.withValue { $0 = false; close(input) }  // `input` is `output` too
            }
            lock.broadcast()
        }
    }

    private func deliver(_ event: FrameEvent) {
        guard case .message(let body) = event else {
            lock.withLock { problems.append("server wrote something that is not a frame: \(event)") }
            return
        }
        do {
            let message = try JSON.parse(body)
            var found = Self.inspect?(message) ?? []
            if let schema {
                found += schema.problems(inServerMessage: message) { id in lock.withLock { methodsByID[id] } }
            }
            lock.withLock {
                received.append(message)
                problems += found
                lock.broadcast()
            }
        } catch {
            lock.withLock { problems.append("server wrote invalid JSON: \(error)") }
        }
    }

    /// Remembers the method of every request in `body` (a message or a batch), by id.
    private func rememberMethods(in body: [UInt8]) {
        guard schema != nil, let message = try? JSON.parse(body) else { return }
        let requests = message.arrayValue ?? [message]
        lock.withLock {
            for request in requests {
                if let id = request["id"], let method = request["method"]?.stringValue { methodsByID[id] = method }
            }
        }
    }

    /// Problems not yet recorded as issues, marked as recorded. A server output cut inside a
    /// frame is left out: tests that kill the server cause it on purpose.
    func takeNewProblems() -> [String] {
        lock.withLock {
            defer { reportedProblems = problems.count }
            return problems[reportedProblems...].filter { $0 != Self.endedInsideAFrame }
        }
    }

    static let endedInsideAFrame = "server output ended inside a frame"

    static func with(_ object: JSON, _ key: String, _ value: JSON) -> JSON {
        guard case .object(var members) = object else { return object }
        members[key] = value
        return .object(members)
    }

    /// The server's output is left open: the reader thread may still be in `read` on it (a
    /// spawned server's is closed by its `ChildProcess`; a socket is shut down, and closed by
    /// the reader once it sees the end).
    deinit { disconnect() }
}
