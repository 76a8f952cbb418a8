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
final class BridgeControl: ClientFileOpener, @unchecked Sendable {
    private let socket: FileDescriptor
    private let logger: Logger
    /// How long an open may take the bridge (a file on a stalled network share, say).
    static let openTimeoutSeconds = 30.0

    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var buffer: [UInt8] = []
    private var descriptors: [FileDescriptor] = []
    private var reply: Result<FileDescriptor, SystemError>?
    private var closed = false
    private var token: ReadinessWatcher.Token?
    private var onEnd: (@Sendable (String) -> Void)?
    /// One open at a time.
    private let opening = ConditionLock()

    /// `socket` must be non-blocking.
    init(socket: FileDescriptor, logger: Logger) {
        self.socket = socket
        self.logger = logger
    }

    /// Starts listening to the bridge: `end` is called (once) when it is told to stop or goes away.
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
        var ended = false
        while true {
            var passed: [FileDescriptor] = []
            var lost = false
            let count = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try socket.receive(into: raw, descriptors: &passed, lostDescriptors: &lost) }
            }
            guard case .success(let read) = count else {
                ended = true
                break
            }
            guard let read else { break }  // nothing more for now
            if read == 0 {
                ended = true
                break
            }
            lock.withLock {
                buffer += chunk[..<read]
                descriptors += passed
            }
        }
        let reason = parse()
        if ended || reason != nil {
            finishListening(reason ?? "the bridge went away")
        } else {
            arm()
        }
    }

    /// Handles every complete message; a reason to end the session, if one came.
    private func parse() -> String? {
        lock.withLock { () -> String? in
            while let first = buffer.first {
                switch first {
                case UInt8(ascii: "T"):
                    buffer.removeFirst()
                    return "the bridge was told to stop"
                case UInt8(ascii: "o"):
                    guard !descriptors.isEmpty else { return nil }
                    buffer.removeFirst()
                    reply = .success(descriptors.removeFirst())
                    lock.broadcast()
                case UInt8(ascii: "e"):
                    guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
                    let code = Int32(String(decoding: buffer[1..<newline], as: UTF8.self)) ?? EIO
                    buffer.removeSubrange(...newline)
                    reply = .failure(SystemError(code: code, operation: "open"))
                    lock.broadcast()
                default:
                    return "the bridge sent something it should not (\(first))"
                }
            }
            return nil
        }
    }

    private func finishListening(_ reason: String) {
        let end = lock.withLock { () -> (@Sendable (String) -> Void)? in
            closed = true
            if reply == nil { reply = .failure(SystemError(code: EPIPE, operation: "ask the bridge to open")) }
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
            }
            let sent = message.withUnsafeBytes { (try? socket.writeAvailable(gathering: [$0], offset: 0)) ?? 0 }
            guard sent == message.count else { throw SystemError(code: EAGAIN, operation: "ask the bridge to open", path: path) }
            let result = lock.withLock { () -> Result<FileDescriptor, SystemError>? in
                let deadline = Deadline(secondsFromNow: Self.openTimeoutSeconds)
                while reply == nil && !closed && !deadline.hasPassed { lock.wait(until: deadline) }
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
