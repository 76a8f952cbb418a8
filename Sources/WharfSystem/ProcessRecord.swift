import Glibc

/// One process as `/proc/PID` shows it, read through a descriptor of that directory opened
/// once.
///
/// Holding the directory open is what makes the readings belong to one process: once that
/// process has exited, every read through the descriptor fails (`ESRCH`) instead of reading a
/// newer process that was given the same pid. Who a socket's peer is (its executable, its
/// Flatpak or Snap sandbox, its parent) is read this way.
public final class ProcessRecord: Sendable {
    public let pid: Int32
    private let directory: FileDescriptor

    /// Opens `/proc/PID`; `ENOENT` when there is no such process.
    public init(pid: Int32) throws(SystemError) {
        self.pid = pid
        directory = try Syscalls.openDirectory(FilePath("/proc/\(pid)")!)
    }

    /// The path of the program the process runs (`exe`), as the kernel reports it: a program
    /// deleted or replaced since it started ends in ` (deleted)`. Nil when it cannot be read
    /// (the process is gone, or it is a kernel thread).
    public func executablePath() -> FilePath? {
        var buffer = [UInt8](repeating: 0, count: 4097)
        let count = buffer.withUnsafeMutableBytes { raw in
            readlinkat(directory.raw, "exe", raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count - 1)
        }
        guard count > 0 else { return nil }
        return FilePath(bytes: buffer[..<count])
    }

    /// The device and inode of the program the process runs (through `exe`, which leads to
    /// the very file even when it was deleted or renamed).
    public func executableIdentity() -> (device: UInt64, inode: UInt64)? {
        var raw = stat()
        guard fstatat(directory.raw, "exe", &raw, 0) == 0 else { return nil }
        return (UInt64(raw.st_dev), UInt64(raw.st_ino))
    }

    /// The file `name` (relative) inside the process's own root directory (`root/NAME`), at
    /// most `limit` bytes; nil when there is none. A sandboxed process's root is its sandbox:
    /// Flatpak puts `/.flatpak-info` there, where the app cannot change it.
    public func fileInRoot(_ name: String, limit: Int = 65536) -> [UInt8]? {
        guard let relative = FilePath("root/" + name),
              let file = try? directory.open(relative, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY),
              (try? file.status())?.kind == .regular
        else { return nil }
        return try? file.readToEnd(limit: limit)
    }

    /// The process's security label (`attr/current`, or the AppArmor-specific
    /// `attr/apparmor/current`), e.g. `snap.firefox.firefox (enforce)`; nil when the kernel
    /// has no label for it.
    public func securityLabel() -> String? {
        for name in ["attr/apparmor/current", "attr/current"] {
            guard let file = try? directory.open(FilePath(name)!, O_RDONLY),
                  let bytes = try? file.readToEnd(limit: 4096), !bytes.isEmpty
            else { continue }
            var text = String(decoding: bytes, as: UTF8.self)
            while text.last == "\n" || text.last == "\0" { text.removeLast() }
            if !text.isEmpty { return text }
        }
        return nil
    }

    /// The parent process (`PPid:` in `status`): the process's parent now, which is the reaper
    /// (pid 1 or a subreaper) once the original parent has exited.
    public func parentPID() -> Int32? {
        guard let file = try? directory.open("status", O_RDONLY), let bytes = try? file.readToEnd(limit: 65536) else { return nil }
        for line in bytes.split(separator: 0x0A) where line.starts(with: Array("PPid:".utf8)) {
            let value = String(decoding: line.dropFirst(5), as: UTF8.self).trimmingCharacters(in: " \t")
            return Int32(value)
        }
        return nil
    }

    /// When the process started, in clock ticks since boot (field 22 of `stat`).
    public func startTime() -> UInt64? {
        guard let file = try? directory.open("stat", O_RDONLY), let bytes = try? file.readToEnd(limit: 4096),
              let paren = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = bytes[(paren + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Whether the process sees the files this process sees: the same mount namespace and the
    /// same root directory. One that does not (in a container, under bubblewrap or firejail, in
    /// a chroot) names paths that this process would find elsewhere, or not at all; and one
    /// whose view cannot be read is taken not to share it.
    public func sharesFileSystemView() -> Bool {
        guard let own = try? ProcessRecord(pid: getpid()),
              let theirs = link("ns/mnt"), let ours = own.link("ns/mnt"), theirs == ours,
              let theirRoot = identity(of: "root"), let ourRoot = own.identity(of: "root")
        else { return false }
        return theirRoot == ourRoot
    }

    /// Where a link of the process's directory leads (`ns/mnt` → `mnt:[4026531841]`).
    private func link(_ name: String) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { raw in
            readlinkat(directory.raw, name, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
        }
        return count > 0 ? Array(buffer[..<count]) : nil
    }

    /// The device and inode of what an entry of the process's directory leads to.
    private func identity(of name: String) -> [UInt64]? {
        var raw = stat()
        guard fstatat(directory.raw, name, &raw, 0) == 0 else { return nil }
        return [UInt64(raw.st_dev), UInt64(raw.st_ino)]
    }

    /// True while the process this record was opened for runs (a zombie counts as gone).
    public var isRunning: Bool {
        guard let file = try? directory.open("stat", O_RDONLY), let bytes = try? file.readToEnd(limit: 4096),
              let paren = bytes.lastIndex(of: UInt8(ascii: ")")), paren + 2 < bytes.count
        else { return false }
        let state = bytes[paren + 2]
        return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
    }

    /// The device and inode of the program this process runs (`/proc/self/exe`).
    public static func ownExecutableIdentity() -> (device: UInt64, inode: UInt64)? {
        (try? ProcessRecord(pid: getpid()))?.executableIdentity()
    }

    /// The path of the program this process runs.
    public static func ownExecutablePath() -> FilePath? {
        (try? ProcessRecord(pid: getpid()))?.executablePath()
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, set.contains(last) { scalars.removeLast() }
        return String(scalars)
    }
}
