import Glibc

/// Unix-domain stream sockets: the daemon's listening socket, its clients' connections, and the
/// descriptors they pass each other (`SCM_RIGHTS`).
///
/// Every socket is made close-on-exec atomically (`SOCK_CLOEXEC`, `accept4`,
/// `MSG_CMSG_CLOEXEC`): a process spawned by another thread meanwhile never inherits one.
public enum UnixSocket {
    /// The longest path a `sockaddr_un` holds: 107 bytes and the terminating NUL.
    public static let maximumPathLength = 107

    /// Creates a socket bound to `path`, with mode `mode`, listening with `backlog`.
    ///
    /// The mode is set between `bind` and `listen`, before anyone can connect: a socket is only
    /// ever reachable with the permissions asked for. Fails with `EADDRINUSE` when something is
    /// at `path` already (the caller decides whether it is stale and removes it).
    public static func listen(at path: FilePath, mode: mode_t = 0o600, backlog: Int32 = 511) throws(SystemError) -> FileDescriptor {
        let socket = try makeSocket(path: path)
        try withAddress(path) { address, length throws(SystemError) in
            guard bind(socket.raw, address, length) == 0 else { throw .current("bind", path: path) }
        }
        try Syscalls.retrying("chmod", path: path) { path.withCString { chmod($0, mode) } }
        guard Glibc.listen(socket.raw, backlog) == 0 else { throw .current("listen", path: path) }
        return socket
    }

    /// Connects to the socket at `path`. `ECONNREFUSED` means nobody listens there (a socket left
    /// by a process that died); `ENOENT`, that there is no socket.
    public static func connect(to path: FilePath) throws(SystemError) -> FileDescriptor {
        let socket = try makeSocket(path: path)
        try withAddress(path) { address, length throws(SystemError) in
            while Glibc.connect(socket.raw, address, length) != 0 {
                if errno != EINTR { throw .current("connect", path: path) }
            }
        }
        return socket
    }

    /// Two connected sockets (`socketpair(2)`), for tests and for handing a connection to a
    /// thread of this process.
    public static func pair() throws(SystemError) -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, streamCloseOnExec, 0, &ends) == 0 else { throw .current("socketpair") }
        return (FileDescriptor(taking: ends[0]), FileDescriptor(taking: ends[1]))
    }

    /// Takes the next connection on `listener` (`accept4(2)` with `SOCK_CLOEXEC`); nil when
    /// none is waiting on a non-blocking listener.
    public static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        guard let accept4 = extensions.accept4 else {
            throw SystemError(code: ENOSYS, operation: "accept4")
        }
        while true {
            let raw = accept4(listener.raw, nil, nil, closeOnExecFlag)
            if raw >= 0 { return FileDescriptor(taking: raw) }
            // A connection that went away before it was accepted, or a signal: try the next.
            if errno == EINTR || errno == ECONNABORTED { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw .current("accept")
        }
    }

    /// True when `descriptor` is a listening Unix stream socket: what a socket unit hands over.
    public static func isListeningStreamSocket(_ descriptor: FileDescriptor) -> Bool {
        var type: Int32 = 0, listening: Int32 = 0, family = sockaddr_un()
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor.raw, SOL_SOCKET, SO_TYPE, &type, &length) == 0,
              type == Int32(SOCK_STREAM.rawValue) else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor.raw, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening != 0 else { return false }
        var addressLength = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &family) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor.raw, $0, &addressLength) }
        }
        return named == 0 && family.sun_family == sa_family_t(AF_UNIX)
    }

    // MARK: Internals

    private static var streamCloseOnExec: Int32 { Int32(SOCK_STREAM.rawValue) | closeOnExecFlag }
    private static var closeOnExecFlag: Int32 { Int32(SOCK_CLOEXEC.rawValue) }

    private static func makeSocket(path: FilePath) throws(SystemError) -> FileDescriptor {
        guard path.bytes.count <= maximumPathLength else {
            throw SystemError(code: ENAMETOOLONG, operation: "use as a socket address (at most \(maximumPathLength) bytes)", path: path)
        }
        let raw = socket(AF_UNIX, streamCloseOnExec, 0)
        guard raw >= 0 else { throw .current("socket", path: path) }
        return FileDescriptor(taking: raw, path: path)
    }

    private static func withAddress(
        _ path: FilePath, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> Void
    ) throws(SystemError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.bytes.count + 1)
        let failure: SystemError? = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                do throws(SystemError) {
                    try body(address, length)
                    return nil
                } catch {
                    return error
                }
            }
        }
        if let failure { throw failure }
    }

    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    /// `accept4` is a GNU extension Swift's Glibc module does not declare; looked up once by
    /// name, as ``Syscalls`` does for its extensions.
    ///
    /// `@unchecked Sendable`: C function pointers looked up once and never changed.
    private struct Extensions: @unchecked Sendable {
        let accept4: Accept4?
        init() {
            accept4 = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4").map { unsafeBitCast($0, to: Accept4.self) }
        }
    }

    private static let extensions = Extensions()
}

/// Which direction `shutdown(2)` closes.
public enum SocketDirection: Sendable {
    case reading, writing, both

    var how: Int32 {
        switch self {
        case .reading: Int32(SHUT_RD)
        case .writing: Int32(SHUT_WR)
        case .both: Int32(SHUT_RDWR)
        }
    }
}

extension FileDescriptor {
    /// `shutdown(2)`: the peer reads end of file (`.writing`), or our own reads do (`.reading`).
    /// Errors (not a socket, not connected) are ignored: there is nothing left to close then.
    public func shutdown(_ direction: SocketDirection) {
        _ = Glibc.shutdown(raw, direction.how)
    }

    /// Reads one byte without taking it (`MSG_PEEK`); nil at end of input. Blocks until a byte
    /// or the end arrives. Descriptors passed with the byte stay queued for the real read.
    public func peekByte() throws(SystemError) -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = recv(raw, &byte, 1, Int32(MSG_PEEK))
            if count == 1 { return byte }
            if count == 0 { return nil }
            if errno != EINTR { throw failure("recv") }
        }
    }

    /// The most descriptors one read takes (`SCM_RIGHTS`); more sent at once are closed by the
    /// kernel, and the read reports them as lost.
    public static let maximumDescriptorsPerRead = 32

    /// One `recvmsg(2)` on a Unix socket: the bytes that arrived (0 at end of input) and any
    /// descriptors passed with them, close-on-exec. Nil when nothing is there yet (a
    /// non-blocking socket). `lostDescriptors` is set when the sender passed more than
    /// ``maximumDescriptorsPerRead`` at once and the rest were dropped.
    public func receive(
        into buffer: UnsafeMutableRawBufferPointer, descriptors: inout [FileDescriptor], lostDescriptors: inout Bool
    ) throws(SystemError) -> Int? {
        let controlLength = ControlMessages.space(forDescriptors: Self.maximumDescriptorsPerRead)
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: controlLength, alignment: 8)
        defer { control.deallocate() }
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        while true {
            var header = msghdr()
            let count = withUnsafeMutablePointer(to: &vector) { vectorPointer in
                header.msg_iov = vectorPointer
                header.msg_iovlen = 1
                header.msg_control = control.baseAddress
                header.msg_controllen = controlLength
                return recvmsg(raw, &header, ControlMessages.closeOnExec)
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
                throw failure("recvmsg")
            }
            descriptors += ControlMessages.descriptors(in: UnsafeRawBufferPointer(rebasing: control[..<Int(header.msg_controllen)]))
            if header.msg_flags & Int32(MSG_CTRUNC) != 0 { lostDescriptors = true }
            return count
        }
    }

    /// Sends `bytes` with `passing` attached (`SCM_RIGHTS`, in one `sendmsg(2)` for the first
    /// chunk), then the rest of the bytes. The receiver gets the descriptors with the read that
    /// takes the first of these bytes. Blocks until everything is sent.
    public func send(_ bytes: [UInt8], passing: [FileDescriptor]) throws(SystemError) {
        precondition(!bytes.isEmpty, "descriptors travel with at least one byte")
        var sent = 0
        if !passing.isEmpty {
            let controlLength = ControlMessages.space(forDescriptors: passing.count)
            let control = UnsafeMutableRawBufferPointer.allocate(byteCount: controlLength, alignment: 8)
            defer { control.deallocate() }
            control.initializeMemory(as: UInt8.self, repeating: 0)
            ControlMessages.writeRights(passing.map(\.raw), into: control)
            while true {
                let count = bytes.withUnsafeBytes { body -> Int in
                    var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var header = msghdr()
                        header.msg_iov = vectorPointer
                        header.msg_iovlen = 1
                        header.msg_control = control.baseAddress
                        header.msg_controllen = controlLength
                        return sendmsg(raw, &header, ControlMessages.noSignal)
                    }
                }
                if count >= 0 {
                    sent = count
                    break
                }
                if errno != EINTR { throw failure("sendmsg") }
            }
        }
        if sent < bytes.count { try write(all: Array(bytes[sent...])) }
    }
}

/// `SCM_RIGHTS` control messages, laid out by hand: the `CMSG_*` macros are not visible to
/// Swift. A `cmsghdr` is a `size_t` length and two `int`s (16 bytes on the 64-bit Linux ABIs),
/// its data aligned to `size_t`.
enum ControlMessages {
    private static let headerLength = MemoryLayout<Int>.size + 2 * MemoryLayout<Int32>.size
    private static let alignment = MemoryLayout<Int>.size
    /// `MSG_CMSG_CLOEXEC` and `MSG_NOSIGNAL` (`<bits/socket.h>`, the same on every Linux ABI).
    static let closeOnExec: Int32 = 0x4000_0000
    static let noSignal: Int32 = 0x4000
    private static let rightsType: Int32 = 1  // SCM_RIGHTS

    private static func aligned(_ length: Int) -> Int { (length + alignment - 1) & ~(alignment - 1) }

    /// `CMSG_SPACE(count * sizeof(int))`.
    static func space(forDescriptors count: Int) -> Int { headerLength + aligned(count * MemoryLayout<Int32>.size) }

    static func writeRights(_ descriptors: [Int32], into buffer: UnsafeMutableRawBufferPointer) {
        buffer.storeBytes(of: headerLength + descriptors.count * MemoryLayout<Int32>.size, toByteOffset: 0, as: Int.self)
        buffer.storeBytes(of: SOL_SOCKET, toByteOffset: MemoryLayout<Int>.size, as: Int32.self)
        buffer.storeBytes(of: rightsType, toByteOffset: MemoryLayout<Int>.size + 4, as: Int32.self)
        for (index, descriptor) in descriptors.enumerated() {
            buffer.storeBytes(of: descriptor, toByteOffset: headerLength + index * 4, as: Int32.self)
        }
    }

    /// Every descriptor in `SCM_RIGHTS` messages of `buffer`, owned by the caller from now on.
    static func descriptors(in buffer: UnsafeRawBufferPointer) -> [FileDescriptor] {
        var found: [FileDescriptor] = []
        var offset = 0
        while offset + headerLength <= buffer.count {
            let length = buffer.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = buffer.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = buffer.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            guard length >= headerLength, offset + length <= buffer.count else { break }
            if level == SOL_SOCKET && type == rightsType {
                let count = (length - headerLength) / MemoryLayout<Int32>.size
                for index in 0..<count {
                    let raw = buffer.loadUnaligned(fromByteOffset: offset + headerLength + index * 4, as: Int32.self)
                    found.append(FileDescriptor(taking: raw))
                }
            }
            offset += aligned(length)
        }
        return found
    }
}

extension UnixSocket {
    /// Removes the socket file at `path` (`unlink(2)`); a missing one is no error.
    public static func remove(_ path: FilePath) throws(SystemError) {
        while path.withCString({ unlink($0) }) != 0 {
            if errno == ENOENT { return }
            if errno != EINTR { throw .current("remove", path: path) }
        }
    }
}
