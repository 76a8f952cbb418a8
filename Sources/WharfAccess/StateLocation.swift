#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// Where the state store lives on disk, and the file-system chores around it: creating the
/// directory (0700) and the database file (0600) before SQLite sees them, and moving a corrupted
/// database aside.
enum StateLocation {
    static let memory = ":memory:"
    static let databaseName = "state.sqlite3"

    /// The directory to use: the explicit one (`--state-dir`), else `$XDG_STATE_HOME/wharf`, else
    /// `~/.local/state/wharf`. The XDG base directory specification says a relative
    /// `$XDG_STATE_HOME` is invalid and must be ignored, so it is.
    static func directory(explicit: String?) -> String {
        if let explicit { return explicit == memory ? memory : FilePath.normalize(explicit) }
        if let raw = getenv("XDG_STATE_HOME") {
            let value = String(cString: raw)
            if value.hasPrefix("/") { return FilePath.join(FilePath.normalize(value), "wharf") }
        }
        return FilePath.join(FilePath.homeDirectory(), ".local/state/wharf")
    }

    /// Creates `directory` and any missing parents with mode 0700 (other users must not read
    /// which files an app was given). An existing directory is left as it is, but a warning says
    /// so when others can reach into it.
    static func prepareDirectory(_ directory: String) throws(SystemError) -> [String] {
        var warnings: [String] = []
        var current = ""
        for component in directory.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { throw .current("mkdir", path: current) }
        }
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
    static func prepareDatabaseFile(_ path: String) throws(SystemError) -> FileIdentity {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .current("open", path: path) }
        defer { close(fd) }
        let status = try FileStatus.of(descriptor: fd, path: path)
        if status.mode & 0o077 != 0 && fchmod(fd, 0o600) != 0 { throw .current("fchmod", path: path) }
        return try FileIdentity.of(path)
    }

    /// Moves a corrupted database (and its `-wal`/`-shm` companions, which must never be replayed
    /// into a fresh file) aside as `state.sqlite3.corrupt-<UTC timestamp>`, under an exclusive
    /// `flock` on the directory so that processes discovering the same damage do it once.
    ///
    /// `judged` is the identity of the file found corrupted; if the path holds another file by the
    /// time the lock is held, another process has already replaced it and nothing is moved.
    /// Answers where the file went, or nil when nothing was moved.
    static func moveAside(database path: String, judged: FileIdentity) throws(SystemError) -> String? {
        let directory = FilePath.directory(of: path)
        let lockFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lockFD >= 0 else { throw .current("open", path: directory) }
        defer { close(lockFD) }
        while flock(lockFD, LOCK_EX) != 0 {
            if errno != EINTR { throw .current("flock", path: directory) }
        }
        defer { flock(lockFD, LOCK_UN) }

        guard let now = try? FileIdentity.of(path), now.sameFile(as: judged) else { return nil }
        var destination = path + ".corrupt-" + timestamp()
        if access(destination, F_OK) == 0 { destination += "-\(getpid())" }
        guard rename(path, destination) == 0 else { throw .current("rename", path: path) }
        for suffix in ["-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            if rename(path + suffix, destination + suffix) != 0 { throw .current("rename", path: path + suffix) }
        }
        return destination
    }

    /// `20260102T030405Z`: sortable, and free of characters that need quoting in a shell.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// Seconds since the epoch, with fraction, for `created`/`updated` columns.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
