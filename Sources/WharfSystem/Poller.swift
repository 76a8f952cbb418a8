import Glibc

/// Waiting on several descriptors at once (`poll(2)`): a thread that serves a bus, a child's
/// output pipes and its exit, or anything else that must sleep until one of a few files has
/// something.
public enum Poller {
    /// `poll(2)`'s event bits: what to wait for, and what happened.
    public struct Events: OptionSet, Sendable, Hashable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        /// There is something to read, or the end of the file (`POLLIN`).
        public static let readable = Events(rawValue: Int16(POLLIN))
        /// A write would not block (`POLLOUT`).
        public static let writable = Events(rawValue: Int16(POLLOUT))
        /// Reported only: the other end closed (`POLLHUP`); what is left can still be read.
        public static let hangUp = Events(rawValue: Int16(POLLHUP))
        /// Reported only: an error on the descriptor (`POLLERR`).
        public static let error = Events(rawValue: Int16(POLLERR))
        /// Reported only: the descriptor is not open (`POLLNVAL`).
        public static let invalid = Events(rawValue: Int16(POLLNVAL))
    }

    /// One descriptor and what to wait for on it.
    public struct Watch {
        /// Keeps an owned descriptor open for as long as the watch is in use.
        private let owner: FileDescriptor?
        let raw: Int32
        public var events: Events

        public init(_ descriptor: FileDescriptor, for events: Events = .readable) {
            owner = descriptor
            raw = descriptor.raw
            self.events = events
        }

        /// A descriptor that another library owns and closes (sd-bus's connection), borrowed
        /// for the wait; it must stay open until the wait returns.
        public init(borrowing raw: Int32, for events: Events) {
            owner = nil
            self.raw = raw
            self.events = events
        }
    }

    /// Sleeps until one of `watches` is ready or `timeoutMilliseconds` have passed (nil: no
    /// limit; 0: only look). Returns, watch by watch, what happened (empty for those with
    /// nothing, and for all of them when the time ran out). An interrupted wait (`EINTR`) goes
    /// on for the rest of the time.
    public static func wait(_ watches: [Watch], timeoutMilliseconds: Int?) throws(SystemError) -> [Events] {
        var entries = watches.map { pollfd(fd: $0.raw, events: $0.events.rawValue, revents: 0) }
        let start = monotonicNanoseconds()
        while true {
            var timeout: Int32 = -1
            if let limit = timeoutMilliseconds {
                let elapsed = Int((monotonicNanoseconds() - start) / 1_000_000)
                timeout = Int32(clamping: max(limit - elapsed, 0))
            }
            let ready = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
            if ready >= 0 { break }
            if errno != EINTR { throw .current("poll") }
        }
        withExtendedLifetime(watches) {}
        return entries.map { Events(rawValue: $0.revents) }
    }
}

/// A pipe that wakes a thread asleep in ``Poller/wait(_:timeoutMilliseconds:)``: any thread
/// calls ``wake()``, the sleeping one watches ``watch`` and, once woken, calls ``drain()``.
///
/// Both ends are non-blocking: waking never blocks (a full pipe is as readable as a pipe with
/// one byte), and draining stops when the pipe is empty. Both are close-on-exec from the
/// start, and closed exactly once with this object.
public final class WakeupPipe: Sendable {
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor

    public init() throws(SystemError) {
        (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
    }

    /// What the sleeping thread waits on: the read end, readable once someone woke it.
    public var watch: Poller.Watch { Poller.Watch(readEnd, for: .readable) }

    /// Wakes the thread waiting on ``watch`` (now, or at its next wait). Any thread; never blocks.
    public func wake() {
        // EAGAIN means the pipe is full, so readable already: nothing is lost.
        try? writeEnd.write(all: [1])
    }

    /// Empties the pipe, so that the next wait sleeps until the next ``wake()``.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while (buffer.withUnsafeMutableBytes { (try? readEnd.read(into: $0)) ?? 0 }) > 0 {}
    }
}
