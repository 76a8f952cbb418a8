import Glibc

/// Diagnostic log lines for people: to standard error by default, or to `--log-file`.
/// Never to standard output, which belongs to the protocol.
public final class Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case error, warning, info, debug

        public init?(name: String) {
            switch name {
            case "error": self = .error
            case "warning", "warn": self = .warning
            case "info": self = .info
            case "debug": self = .debug
            default: return nil
            }
        }

        public var name: String {
            switch self {
            case .error: return "error"
            case .warning: return "warning"
            case .info: return "info"
            case .debug: return "debug"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let level: Level
    private let descriptor: Int32

    /// Logs at `level` and above to `descriptor` (standard error unless told otherwise).
    public init(level: Level = .warning, descriptor: Int32 = 2) {
        self.level = level
        self.descriptor = descriptor
    }

    /// A logger that writes nothing.
    public static let silent = Logger(level: .error, descriptor: -1)

    @inline(__always)
    public func enabled(_ level: Level) -> Bool { descriptor >= 0 && level <= self.level }

    /// One line, `wharf[pid] level: message`, written with a single `write(2)` so lines from
    /// several threads never interleave.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard enabled(level) else { return }
        let line = "wharf[\(getpid())] \(level.name): \(message())\n"
        if HeldLines.shared.withValue({ $0.keep(line, for: descriptor) }) { return }
        Self.write(line, to: descriptor)
    }

    private static func write(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }

    /// Holds the lines every logger writes to standard error until ``releaseStandardError()``:
    /// while a dialog is drawn on the terminal that standard error is, a line written there
    /// would land on its screen. At most ``heldLineLimit`` lines (and 256 KiB) are kept; lines
    /// past that are counted, and the count is said when the held lines are written.
    public static func holdStandardError() { holdLines(writtenTo: 2) }

    /// Writes the held lines to standard error, in order, and stops holding.
    public static func releaseStandardError() { releaseLines() }

    /// Holds the lines loggers write to `descriptor` (standard error, or a test's pipe), as
    /// ``holdStandardError()`` does; one descriptor at a time.
    public static func holdLines(writtenTo descriptor: Int32) {
        HeldLines.shared.withValue { $0.holding = descriptor }
    }

    /// Writes the held lines where they were going, in order, and stops holding.
    public static func releaseLines() {
        while true {
            // Taken a batch at a time: a line logged while the batch is written is held, then
            // written after it, so the order stays.
            let (lines, dropped, descriptor) = HeldLines.shared.withValue { held -> ([String], Int, Int32) in
                let batch = (held.lines, held.dropped, held.holding)
                if batch.0.isEmpty && batch.1 == 0 { held.holding = -1 }
                held.lines = []
                held.bytes = 0
                held.dropped = 0
                return batch
            }
            if lines.isEmpty && dropped == 0 { return }
            for line in lines { write(line, to: descriptor) }
            if dropped > 0 {
                write("wharf[\(getpid())] warning: \(dropped) more log line(s) dropped while a dialog was on this terminal\n",
                      to: descriptor)
            }
        }
    }

    /// How many lines ``holdStandardError()`` keeps.
    public static let heldLineLimit = 1_000

    /// The lines held for standard error.
    private struct HeldLines {
        static let shared = Locked(HeldLines())

        /// The descriptor whose lines are held; -1: none.
        var holding: Int32 = -1
        var lines: [String] = []
        var bytes = 0
        var dropped = 0

        /// Keeps `line` when lines to `descriptor` are held (or counts it, past the bound);
        /// false when they are not and the line is to be written now.
        mutating func keep(_ line: String, for descriptor: Int32) -> Bool {
            guard holding == descriptor, descriptor >= 0 else { return false }
            if lines.count < heldLineLimit && bytes + line.utf8.count <= 256 * 1024 {
                lines.append(line)
                bytes += line.utf8.count
            } else {
                dropped += 1
            }
            return true
        }
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
