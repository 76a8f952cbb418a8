import CProcessSpawn
import Glibc

/// What belongs to the whole process rather than to one session: signals, standard output,
/// the environment, exiting. Only a host (the `wharf` command's stdio host, a test tool) calls
/// these; sessions never do.
public enum ProcessControl {
    /// A reader that closes our output must not kill us: writes then fail with `EPIPE`, and
    /// whoever wrote ends its session cleanly.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Caps the C allocator at `count` arenas. glibc otherwise gives each new thread that meets
    /// contention an arena of its own (up to eight per core), and freed memory scattered over
    /// many arenas is rarely returned: a long session's resident memory crept up by megabytes
    /// that were free, not leaked. Wharf's threads wait far more than they allocate, and small
    /// allocations go through each thread's cache without taking an arena's lock anyway. Call
    /// it before any thread exists; `MALLOC_ARENA_MAX` in the environment still wins.
    public static func limitAllocatorArenas(to count: Int32) {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = mallopt(M_ARENA_MAX, count)
    }

    /// Blocks `SIGTERM` and `SIGINT` in the calling thread, and so in every thread it starts
    /// later: call it before any thread exists. A signal that arrives then stays pending until
    /// ``waitForEndSignal()`` takes it, instead of being lost or killing the process mid-write.
    public static func blockEndSignals() {
        var set = endSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for `SIGTERM` or `SIGINT` (blocked by ``blockEndSignals()``) and says which came.
    public static func waitForEndSignal() -> Int32 {
        var set = endSignals
        var number: Int32 = 0
        while sigwait(&set, &number) != 0 {}
        return number
    }

    private static var endSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    /// Takes standard output for the protocol: returns a private descriptor for it and makes
    /// descriptor 1 a copy of standard error, so a stray print from any library can never
    /// corrupt the stream.
    public static func takeStandardOutput() throws(SystemError) -> FileDescriptor {
        let standardOutput = FileDescriptor(taking: 1)
        defer { standardOutput.relinquish() }  // descriptor 1 stays open, as standard error
        let output = try standardOutput.duplicate()
        guard dup2(2, 1) >= 0 else { throw .current("dup2") }
        return output
    }

    /// Standard input, owned by whoever takes it.
    public static func takeStandardInput() -> FileDescriptor { FileDescriptor(taking: 0) }

    /// Writes `bytes` to standard output as they are (a command's answer: paths, exact).
    public static func writeToStandardOutput(_ bytes: [UInt8]) {
        let standardOutput = FileDescriptor(taking: 1)
        defer { standardOutput.relinquish() }  // standard output stays open
        try? standardOutput.write(all: bytes)
    }

    /// Writes `text` to standard error as it is (messages for people, not log lines).
    public static func writeToStandardError(_ text: String) {
        let standardError = FileDescriptor(taking: 2)
        defer { standardError.relinquish() }  // standard error stays open
        try? standardError.write(all: Array(text.utf8))
    }

    /// Ends the process now with `code`.
    public static func exit(_ code: Int32) -> Never { Glibc.exit(code) }

    /// An environment variable's bytes, nil when unset.
    public static func environment(_ name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return Array(FilePath(cString: value).bytes)
    }

    /// This process's arguments after the program's name, as ``ArgumentText``: text to parse
    /// that still holds every byte (`CommandLine.arguments` replaces what is not UTF-8).
    public static func arguments() -> [String] {
        // A program can be started with no arguments at all, not even its name (argc 0).
        guard CommandLine.argc > 1 else { return [] }
        return (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { ArgumentText.text(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        }
    }

    /// This process's environment, entry by entry (`NAME=value`), as bytes (`environ`).
    public static func environmentEntries() -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var entry = environ
        while let pointer = entry.pointee {
            entries.append(Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))))
            entry += 1
        }
        return entries
    }

    /// This process's environment with `added` set over it and the variables named in
    /// `removing` left out: what a child started with changes to it gets.
    public static func environmentEntries(adding added: [String: String], removing: Set<String> = []) -> [[UInt8]] {
        let kept = environmentEntries().filter { entry in
            let name = String(decoding: entry.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
            return added[name] == nil && !removing.contains(name)
        }
        return kept + added.sorted { $0.key < $1.key }.map { Array("\($0.key)=\($0.value)".utf8) }
    }

    /// This process's environment as a dictionary, names and values read as UTF-8: for
    /// variables that hold text (an address, a display, `PATH`), not for paths with bytes of
    /// their own.
    public static func environmentVariables() -> [String: String] {
        let entries = environmentEntries()
        var variables: [String: String] = [:]
        variables.reserveCapacity(entries.count)
        for entry in entries {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            variables[String(decoding: entry[..<equals], as: UTF8.self)] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
        }
        return variables
    }

    /// This process's id.
    public static var processID: Int32 { getpid() }

    /// Seconds since the epoch, with fraction (wall-clock time, for what is recorded).
    public static func wallClockSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }

    /// Puts the calling thread to sleep (retry loops, polling with a deadline).
    public static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
