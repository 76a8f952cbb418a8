import WharfSystem

/// What the dialog engine keeps between runs, without knowing about SQLite: the folder each
/// importer customization ended in, and the folders the exporter wrote into (so the temporaries
/// of an interrupted export can be cleaned at the next start).
public protocol DialogMemory: Sendable {
    /// Remembers the folder the human ended in, per app identity and `customizationId`. Never
    /// waits for the store (the engine calls it as a dialog ends).
    func rememberDirectory(app: String, customizationId: String, directory: FilePath)
    /// The folder last remembered for this app identity and `customizationId`.
    func rememberedDirectory(app: String, customizationId: String) throws(AccessError) -> FilePath?
    /// Records that the exporter is writing into `directory`.
    func recordWrittenDirectory(_ directory: FilePath) throws(AccessError)
    /// Every folder recorded by `recordWrittenDirectory`, oldest first.
    func writtenDirectories() throws(AccessError) -> [FilePath]
    /// Forgets a folder once its leftovers have been cleaned.
    func forgetWrittenDirectory(_ directory: FilePath) throws(AccessError)
}

extension AccessStore: DialogMemory {
    /// Written behind: the folder is remembered at once (a dialog presented next opens there)
    /// and reaches the store within milliseconds.
    public func rememberDirectory(app: String, customizationId: String, directory: FilePath) {
        pending.change { changes in
            changes.rememberedDirectories[RememberedKey(app: app, customizationId: customizationId)] = (directory, StateLocation.now())
        }
        scheduleFlush()
    }

    /// What is waiting to be written wins over what the store says.
    public func rememberedDirectory(app: String, customizationId: String) throws(AccessError) -> FilePath? {
        let key = RememberedKey(app: app, customizationId: customizationId)
        if let waiting = pending.lock.withLock({ pending.changes.rememberedDirectories[key] }) { return waiting.0 }
        return try read { db in
            try db.first("SELECT directory FROM remembered_directories WHERE app = ? AND customization_id = ?",
                         [.text(app), .text(customizationId)], map: { $0.path(0) })
        }
    }

    public func recordWrittenDirectory(_ directory: FilePath) throws(AccessError) {
        try write { db in
            try db.run("""
                INSERT INTO written_directories (directory, recorded) VALUES (?, ?)
                ON CONFLICT (directory) DO UPDATE SET recorded = excluded.recorded
                """, [.path(directory), .real(StateLocation.now())])
        }
    }

    public func writtenDirectories() throws(AccessError) -> [FilePath] {
        try read { db in
            var directories: [FilePath] = []
            try db.query("SELECT directory FROM written_directories ORDER BY recorded, directory") {
                directories.append($0.path(0))
            }
            return directories
        }
    }

    public func forgetWrittenDirectory(_ directory: FilePath) throws(AccessError) {
        try write { db in try db.run("DELETE FROM written_directories WHERE directory = ?", [.path(directory)]) }
    }
}
