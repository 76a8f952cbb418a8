import Glibc

/// A failed system call, told as a short story: what was attempted, on which path, and why it failed.
///
/// Every module that touches the operating system reports failures with this one type, so a
/// protocol error can always name the file and the cause the same way.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value the call left behind.
    public var code: Int32
    /// What was attempted, e.g. `open` or `rename`.
    public var operation: String
    /// The path the call was about, when there was one.
    public var path: String?

    public init(code: Int32, operation: String, path: String? = nil) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    /// About a path: it is kept as people read it (``FilePath/description``).
    public init(code: Int32, operation: String, path: FilePath) {
        self.init(code: code, operation: operation, path: path.description)
    }

    /// Captures the current `errno`.
    public static func current(_ operation: String, path: String? = nil) -> SystemError {
        SystemError(code: errno, operation: operation, path: path)
    }

    /// Captures the current `errno`, about `path`.
    public static func current(_ operation: String, path: FilePath) -> SystemError {
        SystemError(code: errno, operation: operation, path: path.description)
    }

    /// The C library's own wording for `code` (`strerror`).
    public var reason: String { Self.reason(for: code) }

    /// The C library's own wording for the `errno` value `code` (`strerror`): for libraries
    /// that report failures as (negated) `errno` values, such as sd-bus.
    public static func reason(for code: Int32) -> String { String(cString: strerror(code)) }

    public var description: String {
        if let path { return "\(operation) \(path): \(reason)" }
        return "\(operation): \(reason)"
    }
}
