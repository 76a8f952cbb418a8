import WharfSystem

/// Where the bytes of one exported file come from.
public enum ExportSource: Sendable, Equatable {
    /// Bytes already in memory (a `text` or `base64` document).
    case bytes([UInt8])
    /// A file the client already has, copied in the kernel (`copy_file_range`, then `sendfile`)
    /// and never read whole into memory. It is read to its end, so a FIFO works too.
    case file(path: FilePath)
    /// A file already open for reading: one a daemon client passed over its socket, or one
    /// opened through the client's grant. A regular file is read from its start through a
    /// description of its own (its offset is not the client's); anything else (a pipe) is
    /// read to its end. `label` names it in messages.
    case descriptor(FileDescriptor, label: FilePath)

    public static func == (left: ExportSource, right: ExportSource) -> Bool {
        switch (left, right) {
        case (.bytes(let a), .bytes(let b)): a == b
        case (.file(let a), .file(let b)): a == b
        case (.descriptor(let a, let labelA), .descriptor(let b, let labelB)): a === b && labelA == labelB
        default: false
        }
    }
}

/// One file to write.
public struct ExportItem: Sendable, Equatable {
    /// Absolute destination path. Its directory must exist and is reached without following a
    /// symbolic link anywhere on the way (resolve it first); the file itself is created or,
    /// with `overwrite`, replaced (a symlink there is replaced, never written through).
    public var destination: FilePath
    public var source: ExportSource
    /// The human confirmed replacing an existing file at `destination`.
    public var overwrite: Bool

    public init(destination: FilePath, source: ExportSource, overwrite: Bool) {
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

/// Why an export wrote nothing. Whatever the case, every destination is as it was before.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The export was cancelled; everything was rolled back.
    case cancelled
    /// `path` exists and `overwrite` was false.
    case exists(path: FilePath)
    /// A system call failed while writing `path` (the destination, never a temporary name);
    /// `cause` says which call, on which file, and why — for a source that cannot be read,
    /// `cause.path` is the source.
    case failed(path: FilePath, cause: SystemError)

    public var description: String {
        switch self {
        case .cancelled: return "the export was cancelled"
        case .exists(let path): return "\(path) already exists"
        case .failed(let path, let cause): return "could not write \(path): \(cause)"
        }
    }
}

/// A flag the caller sets, from any thread, to stop an export in progress. The writer looks at
/// it between chunks of a few MiB and before each rename.
public final class ExportCancellation: Sendable {
    private let flag = Locked(false)
    public init() {}
    public func cancel() { flag.withValue { $0 = true } }
    public var isCancelled: Bool { flag.withValue { $0 } }
}
