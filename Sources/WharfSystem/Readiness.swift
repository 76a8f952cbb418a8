import Glibc

/// Waiting for descriptors without tying threads to peers: the daemon's connections read after
/// `poll(2)` says there is input (or their session was told to stop), and write without ever
/// blocking, handing a full socket to ``ReadinessWatcher`` instead of waiting on it.

extension FileDescriptor {
    /// Sets `O_NONBLOCK` on the open file description (shared by every descriptor of it).
    public func setNonBlocking() throws(SystemError) {
        let flags = fcntl(raw, F_GETFL)
        guard flags >= 0, fcntl(raw, F_SETFL, flags | O_NONBLOCK) == 0 else { throw failure("fcntl O_NONBLOCK") }
    }

    /// A new open file description of the same file or pipe (`/proc/self/fd/N` opened again
    /// with `flags`), so that flags set on it (`O_NONBLOCK`) and its offset are ours alone,
    /// not shared with whoever passed us this descriptor. Never with more access than this
    /// description has (`EACCES`): opened through `/proc`, the file's permissions, not how its
    /// sender opened it, would decide, and a descriptor passed `O_PATH` or read-only would
    /// become a read or a write its sender could not make.
    public func reopen(_ flags: Int32) throws(SystemError) -> FileDescriptor {
        let wanted = flags & O_ACCMODE
        guard wanted == O_WRONLY || isOpenForReading, wanted == O_RDONLY || isOpenForWriting else {
            throw failure("open again with more access than it was opened with", code: EACCES)
        }
        return try FileDescriptor.open(FilePath("/proc/self/fd/\(raw)")!, flags | O_NOCTTY)
    }

    /// The access mode the description was opened with (`O_RDONLY`, `O_WRONLY`, `O_RDWR`), and
    /// whether it is an `O_PATH` descriptor (which reads nothing).
    public func accessMode() throws(SystemError) -> (mode: Int32, pathOnly: Bool) {
        let flags = fcntl(raw, F_GETFL)
        guard flags >= 0 else { throw failure("fcntl F_GETFL") }
        return (flags & O_ACCMODE, flags & Syscalls.openPathOnly != 0)
    }

    /// Whether the description was opened for reading (`O_RDONLY` or `O_RDWR`, not `O_PATH`).
    /// A descriptor another process passed proves only the rights it was opened with: check
    /// this before reading it, and before opening it again through `/proc/self/fd` (``reopen``),
    /// which would otherwise grant whatever the file's permissions allow this process.
    public var isOpenForReading: Bool {
        guard let access = try? accessMode() else { return false }
        return !access.pathOnly && (access.mode == O_RDONLY || access.mode == O_RDWR)
    }

    /// Whether the description was opened for writing (`O_WRONLY` or `O_RDWR`, not `O_PATH`).
    public var isOpenForWriting: Bool {
        guard let access = try? accessMode() else { return false }
        return !access.pathOnly && (access.mode == O_WRONLY || access.mode == O_RDWR)
    }

    /// One `read(2)`: how many bytes arrived (0 at end of file), or nil when none are there yet
    /// (`EAGAIN` on a non-blocking descriptor).
    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let count = Glibc.read(raw, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw failure("read")
        }
    }

    /// `writev(2)` of as much of `buffers` as goes without blocking, the first one from
    /// `offset`: how many bytes were written (fewer than all when the descriptor is full). A
    /// peer that closed its end is `EPIPE` (the host ignores `SIGPIPE`).
    ///
    /// A socket (`isSocket`) is written with `sendmsg(MSG_DONTWAIT)`, which does not wait
    /// whatever the description's flags: a socket cannot be opened again, so its description
    /// is shared with whoever passed it, who may clear `O_NONBLOCK` on it at any moment, and a
    /// `writev` would then hold the writing thread for as long as that peer does not read.
    public func writeAvailable(gathering buffers: [UnsafeRawBufferPointer], offset: Int, isSocket: Bool = false) throws(SystemError) -> Int {
        var vectors: [iovec] = []
        vectors.reserveCapacity(min(64, buffers.count))
        var total = 0
        for (index, buffer) in buffers.prefix(64).enumerated() {
            let skip = index == 0 ? offset : 0
            guard buffer.count > skip else { continue }
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress!) + skip, iov_len: buffer.count - skip))
            total += buffer.count - skip
        }
        if vectors.isEmpty { return 0 }
        while true {
            let written = isSocket ? vectors.withUnsafeMutableBufferPointer { vectors in
                var message = msghdr()
                message.msg_iov = vectors.baseAddress
                message.msg_iovlen = vectors.count
                return sendmsg(raw, &message, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            } : writev(raw, vectors, Int32(vectors.count))
            if written >= 0 { return written }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw failure("write")
        }
    }
}

/// A way to wake a thread waiting in ``Readiness/waitReadable(_:or:)``: once ``signal()`` is
/// called, every wait on it returns at once, now and later.
public final class Interrupter: Sendable {
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor
    private let signalled = Locked(false)

    public init() throws(SystemError) {
        let ends = try makePipe()
        readEnd = FileDescriptor(taking: ends.read)
        writeEnd = FileDescriptor(taking: ends.write)
    }

    /// Wakes every waiter, for good.
    public func signal() {
        let first = signalled.withValue { value -> Bool in
            defer { value = true }
            return !value
        }
        if first { try? writeEnd.write(all: [1]) }
    }

    public var isSignalled: Bool { signalled.withValue { $0 } }

    var descriptor: Int32 { readEnd.raw }
}

public enum Readiness {
    /// Blocks until `descriptor` has input, its end of file, or an error to report (true), or
    /// `interrupter` is signalled (false).
    public static func waitReadable(_ descriptor: FileDescriptor, or interrupter: Interrupter?) -> Bool {
        waitForInput(descriptor, or: interrupter, watching: nil) == .input
    }

    /// What ended a wait for input.
    public enum InputWait: Equatable, Sendable {
        /// Input, its end of file, or an error to report: read now.
        case input
        /// The interrupter was signalled.
        case interrupted
        /// The output watched has failed, and no input is waiting: the write end of a pipe
        /// whose reader has gone (`POLLERR`), told as the write would tell it (`EPIPE`).
        case outputFailed(SystemError)
    }

    /// Where read loops spin before sleeping: one of them at a time.
    private static let inputSpin = SpinBeforeSleep()

    /// As ``waitReadable(_:or:)``, and also returns when `output` fails: a process serving a
    /// peer over two pipes learns that the peer stopped reading while it is idle, not only at
    /// its next write, which may never come. Input waiting is read first.
    public static func waitForInput(_ input: FileDescriptor, or interrupter: Interrupter?, watching output: FileDescriptor?) -> InputWait {
        var fds = [pollfd(fd: input.raw, events: Int16(POLLIN), revents: 0)]
        if let interrupter { fds.append(pollfd(fd: interrupter.descriptor, events: Int16(POLLIN), revents: 0)) }
        // No events asked for: poll reports only the output's errors (and hang-ups, ignored:
        // a socket's peer that closed is heard as the input's end of file).
        var watching = output != nil
        if let output { fds.append(pollfd(fd: output.raw, events: 0, revents: 0)) }
        while true {
            // Looks without waiting for a moment first (SpinBeforeSleep: the next request of a
            // client asking one thing at a time comes within microseconds, and being woken for
            // it costs tens of them), and sleeps only then.
            var ready: Int32 = 0
            if !inputSpin.spin(until: { ready = poll(&fds, nfds_t(fds.count), 0); return ready != 0 }) {
                ready = poll(&fds, nfds_t(fds.count), -1)
            }
            if ready < 0 && errno == EINTR { continue }
            if interrupter != nil && fds[1].revents != 0 { return .interrupted }
            if fds[0].revents != 0 || ready < 0 { return .input }
            guard watching, let last = fds.last else { return .input }
            if last.revents & Int16(POLLERR | POLLNVAL) != 0 {
                return .outputFailed(SystemError(code: EPIPE, operation: "write", path: output?.path?.description))
            }
            // A hang-up of the output alone, which poll would report again at once: stop
            // watching it (its next write will tell).
            fds.removeLast()
            watching = false
        }
    }
}

/// One thread that waits, with `poll(2)`, for many descriptors at once to become writable (or
/// readable), and runs each one's callback once on the worker pool when it does.
///
/// A connection whose peer stops reading fills its socket; instead of a thread blocking in
/// `write` until the peer reads again (a few such peers would take every pool thread, and
/// every other client would wait), its writer registers here and returns. Hundreds of
/// waiting descriptors cost one thread.
///
public final class ReadinessWatcher: Sendable {
    public static let shared = ReadinessWatcher()

    public enum Event: Sendable {
        /// `POLLOUT`: room to write.
        case writable
        /// `POLLIN`: input, or the peer's end of file.
        case readable
    }

    /// Stands for one registration, to cancel it.
    public struct Token: Hashable, Sendable { let value: UInt64 }

    private struct Entry {
        let descriptor: FileDescriptor
        let events: Int16
        let callback: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextToken: UInt64 = 1
        var started = false
        var wake: (read: Int32, write: Int32)?
    }

    private let state = Locked(State())

    private init() {}

    /// Runs `callback` (on the worker pool) once `descriptor` is ready for `event`, or has an
    /// error or hang-up to report. The descriptor must stay open until then, or until
    /// ``cancel(_:)``.
    @discardableResult
    public func when(_ event: Event, _ descriptor: FileDescriptor, _ callback: @escaping @Sendable () -> Void) -> Token {
        let (token, startNow): (Token, Bool) = state.withValue { state in
            let token = Token(value: state.nextToken)
            state.nextToken += 1
            let events = Int16(event == .writable ? POLLOUT : POLLIN)
            state.entries[token.value] = Entry(descriptor: descriptor, events: events, callback: callback)
            defer { state.started = true }
            return (token, !state.started)
        }
        if startNow {
            let ends = try! makePipe()
            state.withValue { $0.wake = (ends.read, ends.write) }
            startThread { [self] in run(wakeRead: ends.read) }
        }
        poke()
        return token
    }

    /// Forgets a registration whose callback has not run yet (the descriptor is about to close).
    public func cancel(_ token: Token) {
        let removed = state.withValue { $0.entries.removeValue(forKey: token.value) != nil }
        if removed { poke() }
    }

    private func poke() {
        guard let wakeWrite = state.withValue({ $0.wake?.write }) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run(wakeRead: Int32) {
        let flags = fcntl(wakeRead, F_GETFL)
        _ = fcntl(wakeRead, F_SETFL, flags | O_NONBLOCK)
        if let wakeWrite = state.withValue({ $0.wake?.write }) {
            let writeFlags = fcntl(wakeWrite, F_GETFL)
            _ = fcntl(wakeWrite, F_SETFL, writeFlags | O_NONBLOCK)
        }
        var drain = [UInt8](repeating: 0, count: 256)
        while true {
            let watched = state.withValue { $0.entries.map { ($0.key, $0.value) } }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for (_, entry) in watched { fds.append(pollfd(fd: entry.descriptor.raw, events: entry.events, revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                ProcessControl.sleep(milliseconds: 10)
                continue
            }
            if fds[0].revents != 0 { while read(wakeRead, &drain, drain.count) > 0 {} }
            let due = state.withValue { state -> [@Sendable () -> Void] in
                var due: [@Sendable () -> Void] = []
                for (index, (token, _)) in watched.enumerated() where fds[index + 1].revents != 0 {
                    if let entry = state.entries.removeValue(forKey: token) { due.append(entry.callback) }
                }
                return due
            }
            for callback in due { WorkerPool.shared.run(callback) }
        }
    }
}
