import CProcessSpawn
import Glibc

extension FileDescriptor {
    /// `pipe2(2)` with both ends close-on-exec from the start (`O_CLOEXEC` set atomically), and
    /// non-blocking when `nonBlocking`. Returns (read end, write end).
    ///
    /// An end a child inherited would keep the pipe open after its owner closed it: the reader
    /// waits for an end of file that only comes when that unrelated child exits (a test once
    /// saw a 28 s stall). Made in one step, no spawn on another thread can catch it half made;
    /// and every child ``Subprocess`` starts closes what it inherited beyond its standard
    /// streams anyway.
    public static func pipe(nonBlocking: Bool = false) throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        let ends = try makePipe(flags: nonBlocking ? O_NONBLOCK : 0)
        return (FileDescriptor(taking: ends.read), FileDescriptor(taking: ends.write))
    }
}

/// ``FileDescriptor/pipe(nonBlocking:)`` as two raw descriptors the caller must close: for
/// code that hands the numbers on (a connection's reader and writer).
public func makePipe() throws(SystemError) -> (read: Int32, write: Int32) {
    try makePipe(flags: 0)
}

private func makePipe(flags: Int32) throws(SystemError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard wharf_pipe_cloexec(&ends, flags) == 0 else { throw .current("pipe2") }
    return (ends[0], ends[1])
}
