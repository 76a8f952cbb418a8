import WharfSystem

/// Writes files so that a reader never sees a half-written one and a failure changes nothing.
///
/// Each item goes to a fresh temporary file in its destination's directory (so the final
/// `rename` never crosses file systems), is `fsync`ed, and only when every item is fully on disk
/// are they renamed into place one by one, each in a way that can be undone: a new file with
/// `RENAME_NOREPLACE`, a replaced one with `RENAME_EXCHANGE` so the old file survives under the
/// temporary name until the end. If anything fails or the export is cancelled, the renames done
/// so far are undone in reverse order and the temporaries removed. The directories are
/// `fsync`ed before the replaced files are finally deleted, so a crash can lose the new files
/// but never both versions.
public enum AtomicWriter {
    /// Temporary files start with this prefix, so orphans left by a crash can be recognised.
    /// The full form is `.wharf-tmp-<pid>-<16 hex digits>`.
    public static let temporaryPrefix = TemporaryName.prefix

    /// Exports over this many bytes in total report progress.
    public static let progressThreshold: Int64 = 1 << 20

    /// Writes every item or none. `progress` is called from the writing thread, at most ten
    /// times a second, for exports over 1 MiB; its last call (`bytesWritten == totalBytes`)
    /// comes when every byte is on disk, just before the files are renamed into place.
    ///
    /// Runs on the calling thread and blocks it; `cancellation` may be set from any other
    /// thread.
    public static func write(
        _ items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)? = nil,
        cancellation: ExportCancellation? = nil
    ) throws(ExportError) {
        try write(items, progress: progress, cancellation: cancellation, configuration: WriterConfiguration())
    }

    /// `write` with the knobs tests turn: chunk size, the clock behind progress pacing, and
    /// switches that force the fallback paths taken on file systems without the Linux
    /// extensions.
    static func write(
        _ items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)?,
        cancellation: ExportCancellation?,
        configuration: WriterConfiguration
    ) throws(ExportError) {
        guard !items.isEmpty else { return }
        let transaction = ExportTransaction(
            items: items, progress: progress, cancellation: cancellation, configuration: configuration
        )
        try transaction.run()
    }
}

/// How the writer goes about its work. The defaults are what the server uses.
struct WriterConfiguration: Sendable {
    /// Bytes moved between two looks at the cancellation flag (and two progress ticks).
    var chunkSize = 4 << 20
    /// The buffer of the read/write fallback; memory use stays bounded by it.
    var bufferSize = 1 << 20
    /// Try `copy_file_range` and `sendfile` before the read/write loop.
    var kernelCopy = true
    /// Use `renameat2` flags; when false, act as on a file system that rejects them (`EINVAL`).
    var renameFlags = true
    /// Keep a replaced file under a hard link; when false, act as on a file system without
    /// them (the old file is moved aside instead).
    var hardLinks = true
    /// Start writeback of each chunk as soon as it is written (`sync_file_range`).
    var earlyWriteback = true
    /// Reserve the file's blocks before writing it (`fallocate`), on disk-backed file systems.
    var reserveSpace = true
    /// Reserve on tmpfs too (only tests want this: a small tmpfs is their "full disk").
    var reserveSpaceInMemory = false
    var progressThreshold: Int64 = AtomicWriter.progressThreshold
    var progressInterval: UInt64 = 100_000_000
    var clock: @Sendable () -> UInt64 = monotonicNanoseconds
}
