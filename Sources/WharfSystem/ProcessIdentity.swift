import Glibc

/// Who a running process is, robust to pid reuse: the pid together with the moment the kernel
/// started it (field 22 of `/proc/<pid>/stat`, in clock ticks since boot).
///
/// Several Wharf processes share one state store, and rows belonging to a process that died
/// without cleaning up must be recognised as orphaned; a pid alone may already belong to another
/// program by then.
public struct ProcessIdentity: Sendable, Hashable {
    public var pid: Int32
    public var startTime: UInt64

    public init(pid: Int32, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }

    /// This process. Read from `/proc` once: neither its pid nor its start time changes (Wharf
    /// never forks; a child is spawned, `posix_spawn`), and the state store asks with every
    /// batch of grants it writes.
    public static func current() -> ProcessIdentity { this }

    private static let this: ProcessIdentity = {
        let pid = getpid()
        return ProcessIdentity(pid: pid, startTime: startTime(of: pid) ?? 0)
    }()

    /// Whether the process this identity names is still running (a zombie counts as gone).
    /// A start time of 0 means it was unknown when recorded; then only the pid is checked.
    public var isRunning: Bool {
        guard let stat = ProcessStat.read(pid) else { return false }
        if stat.state == UInt8(ascii: "Z") || stat.state == UInt8(ascii: "X") { return false }
        return startTime == 0 || stat.startTime == startTime
    }

    /// Whether a process with this pid exists (`kill(pid, 0)`; one we may not signal exists too).
    public static func exists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// The start time of `pid`, or nil when there is no such process.
    public static func startTime(of pid: Int32) -> UInt64? {
        ProcessStat.read(pid)?.startTime
    }
}
