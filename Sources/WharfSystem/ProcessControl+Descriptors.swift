import Glibc

extension ProcessControl {
    /// Raises this process's limit on open descriptors to the most it may have (the hard
    /// limit): a daemon holding hundreds of connections, each with a few descriptors, would
    /// otherwise meet the customary soft limit of 1024. Returns the limit now in force.
    @discardableResult
    public static func raiseDescriptorLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(resourceDescriptors, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resourceDescriptors, &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }

    /// `RLIMIT_NOFILE`, an enumeration constant in Swift's view of glibc.
    private static var resourceDescriptors: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }

    /// Points standard input and output at `/dev/null` (after they were handed to someone
    /// else): nothing of this process then holds the pipes they were.
    public static func detachStandardInputAndOutput() {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return }
        _ = dup2(null, 0)
        _ = dup2(null, 1)
        if null > 2 { _ = close(null) }
    }

    /// The descriptor of standard input or output, to pass to another process: not owned,
    /// never closed by the object.
    public static func standardStream(_ number: Int32) -> FileDescriptor {
        let stream = FileDescriptor(taking: number)
        stream.relinquish()
        return stream
    }
}
