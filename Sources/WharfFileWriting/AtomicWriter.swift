import WharfSystem

// STUB API — the file-writing helper replaces the bodies; the signatures are the contract the
// dialog engine codes against. Keep them (extend, don't break).

/// Where the bytes of one exported file come from.
public enum ExportSource: Sendable, Equatable {
    /// Bytes already in memory (a `text` or `base64` document).
    case bytes([UInt8])
    /// A file the client already has, copied in the kernel (`copy_file_range`/`sendfile`).
    case file(path: String)
}

/// One file to write.
public struct ExportItem: Sendable, Equatable {
    /// Absolute destination path.
    public var destination: String
    public var source: ExportSource
    /// The human confirmed replacing an existing file at `destination`.
    public var overwrite: Bool

    public init(destination: String, source: ExportSource, overwrite: Bool) {
        self.destination = destination
        self.source = source
        self.overwrite = overwrite
    }
}

/// How far an export has come.
public struct ExportProgress: Sendable, Equatable {
    public var bytesWritten: Int64
    public var totalBytes: Int64
    public init(bytesWritten: Int64, totalBytes: Int64) {
        self.bytesWritten = bytesWritten
        self.totalBytes = totalBytes
    }
}

/// Why an export wrote nothing.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The export was cancelled; everything was rolled back.
    case cancelled
    /// `path` exists and `overwrite` was false.
    case exists(path: String)
    /// A system call failed while writing `path`.
    case failed(path: String, cause: SystemError)

    public var description: String {
        switch self {
        case .cancelled: return "the export was cancelled"
        case .exists(let path): return "\(path) already exists"
        case .failed(let path, let cause): return "could not write \(path): \(cause)"
        }
    }
}

/// A flag the caller sets to stop an export in progress.
public final class ExportCancellation: Sendable {
    private let flag = Locked(false)
    public init() {}
    public func cancel() { flag.withValue { $0 = true } }
    public var isCancelled: Bool { flag.withValue { $0 } }
}

/// Writes files so that a reader never sees a half-written one and a failure changes nothing.
public enum AtomicWriter {
    /// Temporary files start with this prefix, so orphans left by a crash can be recognised.
    public static let temporaryPrefix = ".wharf-tmp-"

    /// Writes every item or none. `progress` is called from the writing thread, at most ten
    /// times a second, for exports over 1 MiB.
    public static func write(
        _ items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)? = nil,
        cancellation: ExportCancellation? = nil
    ) throws(ExportError) {
        fatalError("AtomicWriter.write is not implemented yet")
    }

    /// Removes temporary files orphaned by a crash in `directory`; returns the paths removed.
    @discardableResult
    public static func removeOrphans(in directory: String) -> [String] {
        []
    }
}
