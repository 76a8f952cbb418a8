import Glibc

/// Starting other programs and waiting for them. The server never does; tests and tools do,
/// many at once on parallel test threads, and every spawn goes through here so that it holds
/// the lock `makePipe` takes (a child spawned while a pipe is half made inherits it).
public enum Spawn {
    /// Starts `program` with `arguments` and returns its pid. `environment` entries are added
    /// to this process's and those named in `removing` left out; `searchPath` looks `program` up on `PATH`. `streams` adds the file
    /// actions that give the child its standard streams.
    public static func start(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], removing: Set<String> = [],
        searchPath: Bool = false, streams: (inout posix_spawn_file_actions_t) -> Void
    ) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        streams(&actions)

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environmentEntries(adding: environment, removing: removing).map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child = pid_t()
        let result = DescriptorInheritance.lock.withLock {
            searchPath
                ? posix_spawnp(&child, program, &actions, nil, argv, envp)
                : posix_spawn(&child, program, &actions, nil, argv, envp)
        }
        guard result == 0 else { throw SystemError(code: result, operation: "posix_spawn", path: program) }
        return child
    }

    /// The exit code `waitpid` reported in `status`, or 128 + the signal that ended the child,
    /// as shells report it.
    public static func exitCode(fromWaitStatus status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Blocks until `pid` ends; its exit code (`exitCode(fromWaitStatus:)`).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return exitCode(fromWaitStatus: status)
    }

    /// Everything `descriptor` yields until end of file (or an error).
    public static func readToEnd(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return bytes
    }

    /// `NAME=value` for this process's environment with `added` set over it.
    private static func environmentEntries(adding added: [String: String], removing: Set<String>) -> [String] {
        var entries: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? pair
            if added[name] == nil && !removing.contains(name) { entries.append(pair) }
            entry += 1
        }
        for (name, value) in added { entries.append("\(name)=\(value)") }
        return entries
    }
}
