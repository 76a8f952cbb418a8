#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory of files for one rig test, removed with `rm -rf` when done.
public final class Scratch: @unchecked Sendable {
    public let path: String

    public init(files: [String] = [], rawNames: [[UInt8]] = []) {
        var template = Array("/tmp/wharf-rig-XXXXXX".utf8CString)
        path = String(cString: mkdtemp(&template)!)
        for name in files { touch(Array((path + "/" + name).utf8)) }
        for raw in rawNames { touch(Array((path + "/").utf8) + raw) }
    }

    public func at(_ name: String) -> String { path + "/" + name }
    public func bytes(_ name: String) -> [UInt8] { Array(at(name).utf8) }

    public func mkdir(_ name: String) { _ = Glibc.mkdir(at(name), 0o755) }

    public func touch(_ path: [UInt8], contents: String = "x") {
        let fd = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        guard fd >= 0 else { return }
        _ = Array(contents.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    deinit { Command.run(["rm", "-rf", path]) }
}
