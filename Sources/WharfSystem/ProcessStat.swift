import Glibc

/// The fields of `/proc/<pid>/stat` Wharf reads: whether the process still runs, how much CPU
/// it has used, and when it started (which, with the pid, names it across pid reuse).
public struct ProcessStat: Sendable {
    /// The state letter (field 3): `R`, `S`, `D`, `Z` for a zombie, `X` for dead, …
    public var state: UInt8
    /// User and system CPU time together (fields 14 and 15), in clock ticks.
    public var cpuTicks: UInt64
    /// When the kernel started it (field 22), in clock ticks since boot.
    public var startTime: UInt64

    /// The process's fields now, or nil when there is no such process. The command name
    /// (field 2) may hold spaces and parentheses, so fields are counted from its last `)`.
    public static func read(_ pid: Int32) -> ProcessStat? {
        guard let file = try? FileDescriptor.open(FilePath("/proc/\(pid)/stat")!, O_RDONLY) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let length = buffer.withUnsafeMutableBytes { (try? file.read(filling: $0)) ?? 0 }
        let bytes = buffer[..<length]
        guard let paren = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After ") " come fields 3, 4, …
        let fields = bytes[(paren + 1)...].split(separator: UInt8(ascii: " "))
        func number(_ field: Int) -> UInt64? { UInt64(String(decoding: fields[field - 3], as: UTF8.self)) }
        guard fields.count >= 20, let state = fields[0].first,
              let user = number(14), let system = number(15), let start = number(22)
        else { return nil }
        return ProcessStat(state: state, cpuTicks: user + system, startTime: start)
    }
}
