#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `pipe(2)` with both ends close-on-exec (`pipe2` needs `_GNU_SOURCE`, which Swift's Glibc
/// module does not define). Returns (read end, write end).
public func makePipe() throws(SystemError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw .current("pipe") }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    return (ends[0], ends[1])
}
