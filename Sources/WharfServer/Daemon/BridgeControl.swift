import Glibc
import WharfSystem

/// What a `wharf --connect` bridge sends first, with its standard input and output attached:
/// a NUL byte (which no JSON-RPC client sends first), then `wharf-bridge 1 PPID` and a
/// newline, `PPID` being the process that started it (so the daemon can tell when that
/// process is gone and the bridge orphaned).
///
/// After it, the bridge's socket carries a few one-letter messages:
///
/// | from | message | meaning |
/// | --- | --- | --- |
/// | bridge | `T` | the bridge got SIGTERM or SIGINT: end the session as a signal ends `wharf` |
/// | daemon | `O` PATH NUL | open PATH for reading, as the client (the bridge runs with its rights) |
/// | bridge | `o` + a descriptor | the file opened |
/// | bridge | `e` ERRNO `\n` | it could not be opened |
/// | daemon | `S` + one byte | the session ended with this status: exit with it |
///
/// The bridge answers each `O` with one `o` or `e`, in order. Anything else it sends (an answer
/// no open asked for, a descriptor without its `o`, an unknown letter, an `e` line longer than
/// any errno) ends the session as a protocol violation.
struct BridgeGreeting: Equatable {
    var parentPID: Int32

    static let prefix = Array("\0wharf-bridge 1 ".utf8)

    var bytes: [UInt8] { Self.prefix + Array("\(parentPID)\n".utf8) }

    init(parentPID: Int32) { self.parentPID = parentPID }

    init?(bytes: [UInt8]) {
        guard bytes.count > Self.prefix.count + 1, bytes.starts(with: Self.prefix), bytes.last == 0x0A,
              let pid = Int32(String(decoding: bytes[Self.prefix.count..<(bytes.count - 1)], as: UTF8.self)), pid > 0
        else { return nil }
        parentPID = pid
    }
}

/// Opens files with the client's own rights: what a daemon client that is not on the socket
/// (a bridged one) has instead of passing descriptors.
protocol ClientFileOpener: Sendable {
    /// Opens `path` for reading, as the client would; the error is the client's `errno`.
    func openForReading(_ path: FilePath) throws(SystemError) -> FileDescriptor
}

/// The daemon's end of a bridge's socket, once the session runs on the streams it handed
/// over: hears `T` and the bridge's end (ending the session), asks the bridge to open files
/// (``ClientFileOpener``), and sends the exit status at the end.
///
/// `@unchecked Sendable`: every `var` is read and written with `lock` held.
final class BridgeControl: ClientFileOpener, @unchecked Sendable {
    private let socket: FileDescriptor
    private let logger: Logger
    /// How long an open may take the bridge (a file on a stalled network share, say).
    private let openTimeoutSeconds: Double

    /// The most bytes of an unfinished message kept: the longest the bridge sends is
    /// `e` ERRNO `\n`, 13 bytes for an `Int32`. A bridge sending more without a newline had
    /// every byte kept (and searched again at each read).
    static let maxUnfinishedMessageBytes = 64

    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var buffer: [UInt8] = []
    /// Passed with an `o` not parsed yet: never more than `unanswered`.
    private var descriptors: [FileDescriptor] = []
    /// Opens asked (`O` sent) whose answer has not come yet, counting the abandoned ones.
    private var unanswered = 0
    /// The oldest of those, whose asker stopped waiting (a timeout): their answers, when they
    /// come, are thrown away (the descriptor closed), not taken for a later open's.
    private var abandoned = 0
    private var reply: Result<FileDescriptor, SystemError>?
    private var closed = false
    private var token: ReadinessWatcher.Token?
    private var onEnd: (@Sendable (String) -> Void)?
    /// One open at a time.
    private let opening = ConditionLock()

    /// `socket` must be non-blocking.
    init(socket: FileDescriptor, logger: Logger, openTimeoutSeconds: Double = 30) {
        self.socket = socket
        self.logger = logger
        self.openTimeoutSeconds = openTimeoutSeconds
    }

    /// Starts listening to the bridge: `end` is called (once) when it is told to stop, goes away
    /// or breaks the protocol.
    func start(onEnd end: @escaping @Sendable (String) -> Void) {
        lock.withLock { onEnd = end }
        arm()
    }

    private func arm() {
        lock.withLock {
            guard !closed else { return }
            token = ReadinessWatcher.shared.when(.readable, socket) { [self] in readable() }
        }
    }

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var reason: String?
        while reason == nil {
            var passed: [FileDescriptor] = []
            var lost = false
            let count = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try socket.receive(into: raw, descriptors: &passed, lostDescriptors: &lost) }
            }
            guard case .success(let read) = count else {
                reason = "the bridge went away"
                break
            }
            guard let read else { break }  // nothing more for now
            if read == 0 {
                reason = "the bridge went away"
                break
            }
            // Each read is handled before the next, so what is held stays bounded: at most
            // one descriptor per open asked, and one unfinished message.
            reason = lock.withLock { take(chunk[..<read], passed, lost: lost) }
        }
        if let reason {
            finishListening(reason)
        } else {
            arm()
        }
    }

    /// Takes one read's bytes and descriptors and handles every complete message; a reason
    /// to end the session, if one came. Called with `lock` held.
    private func take(_ bytes: ArraySlice<UInt8>, _ passed: [FileDescriptor], lost: Bool) -> String? {
        // A descriptor is only ever the answer to an open: the ones beyond what the opens
        // asked can hold are closed now (by dropping them), not kept.
        if lost || passed.count > unanswered - descriptors.count {
            let count = passed.count
            return violation("it passed \(count)\(lost ? " or more" : "") descriptors with \(unanswered) open(s) unanswered")
        }
        descriptors += passed
        buffer += bytes
        if let reason = parse() { return reason }
        if buffer.count > Self.maxUnfinishedMessageBytes {
            return violation("it sent \(buffer.count) bytes of a message without its end (the longest is 13)")
        }
        return nil
    }

    /// Handles every complete message in `buffer`; a reason to end the session, if one came.
    /// Called with `lock` held.
    private func parse() -> String? {
        while let first = buffer.first {
            switch first {
            case UInt8(ascii: "T"):
                buffer.removeFirst()
                return "the bridge was told to stop"
            case UInt8(ascii: "o"):
                guard unanswered > 0 else { return violation("it answered an open that was not asked for") }
                // The descriptor comes with the read that takes its `o` (a Unix socket
                // delivers it with the first byte it was sent with).
                guard !descriptors.isEmpty else { return violation("it answered an open without a descriptor") }
                buffer.removeFirst()
                answer(.success(descriptors.removeFirst()))
            case UInt8(ascii: "e"):
                guard unanswered > 0 else { return violation("it answered an open that was not asked for") }
                guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
                let code = Int32(String(decoding: buffer[1..<newline], as: UTF8.self)) ?? EIO
                buffer.removeSubrange(...newline)
                answer(.failure(SystemError(code: code, operation: "open")))
            default:
                return violation("it sent a byte no message starts with (\(first))")
            }
        }
        return nil
    }

    /// The answer to the oldest open still unanswered. Called with `lock` held.
    private func answer(_ result: Result<FileDescriptor, SystemError>) {
        unanswered -= 1
        if abandoned > 0 {
            // Its asker gave up; a descriptor in `result` is closed as it is dropped.
            abandoned -= 1
            return
        }
        reply = result
        lock.broadcast()
    }

    /// Logs what the bridge did wrong, and returns the session's reason to end.
    private func violation(_ what: String) -> String {
        logger.warning("ending a bridged session: its bridge broke the control protocol: \(what)")
        return "the bridge broke the control protocol (\(what))"
    }

    private func finishListening(_ reason: String) {
        let end = lock.withLock { () -> (@Sendable (String) -> Void)? in
            closed = true
            if reply == nil { reply = .failure(SystemError(code: EPIPE, operation: "ask the bridge to open")) }
            // Nothing more will be read: what was passed and not taken is closed now.
            descriptors = []
            buffer = []
            lock.broadcast()
            defer { onEnd = nil }
            return onEnd
        }
        // Ending a session waits for its last writes: not on the pool thread the watcher uses.
        if let end { startThread { end(reason) } }
    }

    func openForReading(_ path: FilePath) throws(SystemError) -> FileDescriptor {
        try opening.withLock { () throws(SystemError) -> FileDescriptor in
            let message = [UInt8(ascii: "O")] + path.bytes + [0]
            try lock.withLock { () throws(SystemError) in
                guard !closed else { throw SystemError(code: EPIPE, operation: "ask the bridge to open", path: path) }
                reply = nil
                // Counted before it is sent: the answer may be read before the send returns.
                unanswered += 1
            }
            let sent = message.withUnsafeBytes { (try? socket.writeAvailable(gathering: [$0], offset: 0)) ?? 0 }
            guard sent == message.count else {
                lock.withLock {
                    // Not asked at all, or asked in part (the bridge may answer the rest of it).
                    if sent == 0 { unanswered -= 1 } else { abandoned += 1 }
                }
                throw SystemError(code: EAGAIN, operation: "ask the bridge to open", path: path)
            }
            let result = lock.withLock { () -> Result<FileDescriptor, SystemError>? in
                let deadline = Deadline(secondsFromNow: openTimeoutSeconds)
                while reply == nil && !closed && !deadline.hasPassed { lock.wait(until: deadline) }
                // Timed out: its answer, if it ever comes, is not for the next open.
                if reply == nil && !closed { abandoned += 1 }
                defer { reply = nil }
                return reply
            }
            switch result {
            case .success(let descriptor)?: return descriptor
            case .failure(let error)?: throw SystemError(code: error.code, operation: "open", path: path)
            case nil: throw SystemError(code: ETIMEDOUT, operation: "open (the bridge did not answer)", path: path)
            }
        }
    }

    /// The session ended with `status`: tell the bridge, and stop listening to it.
    func finish(status: Int32) {
        lock.withLock {
            closed = true
            onEnd = nil
            if let token { ReadinessWatcher.shared.cancel(token) }
            token = nil
            lock.broadcast()
        }
        let message: [UInt8] = [UInt8(ascii: "S"), UInt8(truncatingIfNeeded: status)]
        _ = message.withUnsafeBytes { try? socket.writeAvailable(gathering: [$0], offset: 0) }
    }
}
