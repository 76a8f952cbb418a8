import WharfAccess
import WharfDialogs
import WharfFileWriting
import WharfSystem

/// The importer's `customizationId` memory, kept in the state store so it survives restarts.
struct StoreDirectoryMemory: DirectoryMemory {
    let store: AccessStore
    let logger: Logger

    func rememberedDirectory(app: String, customizationId: String) -> FilePath? {
        do {
            return try store.rememberedDirectory(app: app, customizationId: customizationId)
        } catch {
            logger.warning("could not read the remembered directory for \(customizationId): \(error)")
            return nil
        }
    }

    func remember(app: String, customizationId: String, directory: FilePath) {
        // Written behind: a failure is reported by the store's own problem handler.
        store.rememberDirectory(app: app, customizationId: customizationId, directory: directory)
    }
}

/// Writes exports atomically, after noting each destination directory in the state store, so
/// that temporaries orphaned by a crash mid-write are found and removed at the next start.
struct RecordingExportWriter: ExportWriting {
    let store: AccessStore
    let logger: Logger

    func write(
        _ items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)?,
        cancellation: ExportCancellation?
    ) throws(ExportError) {
        for directory in Set(items.map(\.destination.directory)) {
            do {
                try store.recordWrittenDirectory(directory)
            } catch {
                logger.warning("could not record \(directory) for orphan cleanup: \(error)")
            }
        }
        try AtomicWriter.write(items, progress: progress, cancellation: cancellation)
    }
}

/// Moves a mover's files, after noting the destination folder and each source's folder in the
/// state store: a move across file systems leaves temporaries in both when a crash stops it,
/// and the next start removes them as it removes an export's.
struct RecordingFileMover: FileMoving {
    let store: AccessStore
    let logger: Logger

    func conflicts(_ items: [MoveItem], in folder: FilePath) throws(MoveError) -> [[UInt8]] {
        try FileMover.conflicts(items, in: folder)
    }

    func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(MoveError) -> [FilePath] {
        for directory in Set([folder] + items.map(\.source.directory)) {
            do {
                try store.recordWrittenDirectory(directory)
            } catch {
                logger.warning("could not record \(directory) for orphan cleanup: \(error)")
            }
        }
        return try FileMover.move(items, into: folder, resolution: resolution, progress: progress, cancellation: cancellation)
    }
}
