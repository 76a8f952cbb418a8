import Glibc

extension Spawn {
    /// Starts `program` in a session of its own (`setsid`), with standard input and output on
    /// `/dev/null` and standard error appended to `logFile` (or `/dev/null`): a background
    /// service that outlives whoever started it and holds none of its pipes (an editor waiting
    /// for end of file on a pipe must not wait for the service). Returns its pid; nobody waits
    /// for it.
    public static func startDetached(_ program: String, _ arguments: [String], logFile: FilePath?) throws(SystemError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(setSession))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if let logFile {
            logFile.withCString { path in
                _ = posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            }
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let result = DescriptorInheritance.lock.withLock {
            posix_spawn(&child, program, &actions, &attributes, argv, environ)
        }
        guard result == 0 else { throw SystemError(code: result, operation: "posix_spawn", path: program) }
        return child
    }

    /// `POSIX_SPAWN_SETSID` (glibc 2.26, behind `_GNU_SOURCE`).
    private static let setSession: Int32 = 0x80
}
