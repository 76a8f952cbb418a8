import Glibc

/// A file's times to the nanosecond, as `stat(2)` has them: what a move across file systems
/// gives the copy so that it looks as the original did (``FileStatus/modified`` is a `Double`,
/// which cannot hold a nanosecond count of today's seconds exactly).
public struct FileTimes: Sendable, Equatable {
    /// Seconds and nanoseconds since the epoch, as a `timespec`.
    public struct Timestamp: Sendable, Equatable {
        public var seconds: Int64
        public var nanoseconds: Int64

        public init(seconds: Int64, nanoseconds: Int64) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        init(_ raw: timespec) {
            self.init(seconds: Int64(raw.tv_sec), nanoseconds: Int64(raw.tv_nsec))
        }

        var raw: timespec { timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)) }
    }

    /// Last read (`st_atim`).
    public var accessed: Timestamp
    /// Last change of contents (`st_mtim`).
    public var modified: Timestamp
    /// Last change of contents or attributes (`st_ctim`); the kernel sets it, nobody can.
    public var changed: Timestamp

    public init(_ raw: stat) {
        accessed = Timestamp(raw.st_atim)
        modified = Timestamp(raw.st_mtim)
        changed = Timestamp(raw.st_ctim)
    }
}
