#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// A child process whose standard output and error go to a file, which a test can read while
/// the child runs (`waitForLine`).
final class ChildProcess {
    let pid: pid_t
    let outputPath: String
    private var exitStatus: Int32?

    init(_ executable: String, _ arguments: [String], outputPath: String) throws {
        self.outputPath = outputPath
        pid = try Spawn.start(executable, arguments) { actions in
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
    }

    /// Waits for the process to end; returns its exit status, or 128 + signal.
    @discardableResult
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        let result = Spawn.wait(pid)
        exitStatus = result
        return result
    }

    var output: String { text(of: outputPath) ?? "" }

    /// Waits (polling) until the output has a line starting with `prefix`, or the process
    /// ended; a generous deadline only guards against a hung test, it asserts nothing.
    func waitForLine(startingWith prefix: String) -> String? {
        for _ in 0..<6000 {
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line) }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = Spawn.exitCode(fromWaitStatus: status)
                return output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).map(String.init)
            }
            usleep(10_000)
        }
        return nil
    }
}

/// Runs a program to its end; returns its exit status and output.
@discardableResult
func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
    var template = Array("/tmp/wharf-fw-out-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    let outputPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    if fd >= 0 { close(fd) }
    defer { unlink(outputPath) }
    guard let child = try? ChildProcess(executable, arguments, outputPath: outputPath) else { return (127, "") }
    let status = child.wait()
    return (status, child.output)
}

/// The write probe (Tests/Tools/WriteProbe), built next to the test bundle.
enum Probe {
    static var path: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = String(decoding: buffer[..<max(count, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return FilePath.join(FilePath.directory(of: executable), "wharf-write-probe")
    }

    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        WharfFileWritingTests.run(path, arguments)
    }
}
