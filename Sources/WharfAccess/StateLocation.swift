import Glibc
import WharfSystem

/// Where the state store lives on disk, and the file-system chores around it: creating the
/// directory (0700) and the database file (0600) before SQLite sees them, and moving a corrupted
/// database aside.
enum StateLocation {
    static let memory = ":memory:"
    static let databaseName = "state.sqlite3"

    /// The directory to use: the explicit one (`--state-dir`), else `$XDG_STATE_HOME/wharf`, else
    /// `~/.local/state/wharf`; nil for `:memory:`. The XDG base directory specification says a
    /// relative `$XDG_STATE_HOME` is invalid and must be ignored, so it is.
    static func directory(explicit: FilePath?) -> FilePath? {
        if let explicit { return explicit.description == memory ? nil : explicit.normalized }
        if let raw = ProcessControl.environment("XDG_STATE_HOME"), !raw.isEmpty {
            let value = FilePath(unchecked: raw)
            if value.isAbsolute { return value.normalized.appending("wharf") }
        }
        return FilePath.home().appending(".local/state/wharf")
    }

    /// Creates `directory` and any missing parents with mode 0700 (other users must not read
    /// which files an app was given). An existing directory is left as it is, but a warning says
    /// so when others can reach into it.
    static func prepareDirectory(_ directory: FilePath) throws(SystemError) -> [String] {
        var warnings: [String] = []
        try Syscalls.makeDirectories(directory, mode: 0o700)
        let status = try FileStatus.of(directory)
        guard status.kind == .directory else { throw SystemError(code: ENOTDIR, operation: "mkdir", path: directory) }
        if status.mode & 0o077 != 0 {
            warnings.append("the state directory \(directory) is accessible to other users (mode "
                + String(status.mode & 0o777, radix: 8) + "); consider chmod 700")
        }
        return warnings
    }

    /// Creates the database file 0600 if missing (SQLite would use 0644 minus the umask, and it
    /// gives the `-wal` and `-shm` files the main file's mode), and tightens an existing one.
    /// Answers the identity of the file, so a later corruption check knows which file it judged.
    static func prepareDatabaseFile(_ path: FilePath) throws(SystemError) -> FileIdentity {
        let file = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
        let status = try file.status()
        if status.mode & 0o077 != 0 { try Syscalls.changeMode(file, 0o600) }
        return try file.identity()
    }

    /// Moves a corrupted database (and its `-wal`/`-shm` companions, which must never be replayed
    /// into a fresh file) aside as `state.sqlite3.corrupt-<UTC timestamp>`, under an exclusive
    /// `flock` on the directory so that processes discovering the same damage do it once.
    ///
    /// `judged` is the identity of the file found corrupted; if the path holds another file by the
    /// time the lock is held, another process has already replaced it and nothing is moved.
    /// Answers where the file went, or nil when nothing was moved.
    static func moveAside(database path: FilePath, judged: FileIdentity) throws(SystemError) -> FilePath? {
        let directory = try Syscalls.openDirectory(path.directory)
        // Released when `directory` closes.
        try Syscalls.lock(directory)

        guard let now = try? FileIdentity.of(path), now.sameFile(as: judged) else { return nil }
        let name = path.lastComponent
        var destination = name + Array(".corrupt-\(timestamp())".utf8)
        if (try? Syscalls.statusIfPresent(in: directory, FilePath(unchecked: destination), reportedAs: path)) != nil {
            destination += Array("-\(ProcessControl.processID)".utf8)
        }
        try Syscalls.rename(in: directory, FilePath(unchecked: name), to: FilePath(unchecked: destination), reportedAs: path)
        for suffix in ["-wal", "-shm"] {
            let companion = FilePath(unchecked: name + Array(suffix.utf8))
            guard (try? Syscalls.statusIfPresent(in: directory, companion, reportedAs: path)) != nil else { continue }
            try Syscalls.rename(in: directory, companion, to: FilePath(unchecked: destination + Array(suffix.utf8)),
                                reportedAs: path.directory.appending(companion.bytes))
        }
        return path.directory.appending(destination)
    }

    /// `20260102T030405Z`: sortable, and free of characters that need quoting in a shell.
    static func timestamp() -> String {
        ISO8601.format(ProcessControl.wallClockSeconds()).filter { $0 != "-" && $0 != ":" }
    }

    /// Seconds since the epoch, with fraction, for `created`/`updated` columns.
    static func now() -> Double {
        ProcessControl.wallClockSeconds()
    }
}
