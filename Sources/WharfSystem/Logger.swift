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
        var line = "wharf[\(getpid())] \(level.name): \(message())\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
