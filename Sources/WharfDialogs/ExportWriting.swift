import WharfFileWriting

/// Writes an exporter's files. The engine calls it on a background queue, never on the
/// caller's thread; the default is ``AtomicExportWriter``. Tests inject their own.
///
/// The contract is ``AtomicWriter/write(_:progress:cancellation:)``'s: every item or none,
/// `ExportError.cancelled` after a requested stop (everything rolled back).
public protocol ExportWriting: Sendable {
    func write(
        _ items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)?,
        cancellation: ExportCancellation?
    ) throws(ExportError)
}

/// ``ExportWriting`` with `AtomicWriter`: temporary file, `fsync`, rename, directory `fsync`.
public struct AtomicExportWriter: ExportWriting {
    public init() {}

    public func write(
        _ items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)?,
        cancellation: ExportCancellation?
    ) throws(ExportError) {
        try AtomicWriter.write(items, progress: progress, cancellation: cancellation)
    }
}
