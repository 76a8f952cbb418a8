#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// A fresh directory under /tmp, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init(_ label: String = "wharf-ct") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    deinit { _ = try? run("/bin/rm", ["-rf", path]) }

    /// Writes `bytes` to `name` inside the directory (creating parent folders) and returns the path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o644) -> String {
        let full = FilePath.join(path, name)
        makeDirectory(FilePath.directory(of: full))
        let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "open \(full): \(String(cString: strerror(errno)))")
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                precondition(count > 0)
                written += count
            }
        }
        close(fd)
        return full
    }

    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }

    @discardableResult
    func makeDirectory(_ name: String) -> String {
        let full = name.hasPrefix("/") ? name : FilePath.join(path, name)
        var current = ""
        for part in full.split(separator: "/") {
            current += "/" + part
            mkdir(current, 0o755)
        }
        return full
    }

    @discardableResult
    func symlink(_ name: String, to target: String) -> String {
        let full = FilePath.join(path, name)
        precondition(Glibc.symlink(target, full) == 0)
        return full
    }
}

/// Runs a program (searched on PATH) and returns its exit status and standard output.
func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let pipe = try makePipe()
    let spawned = Result { () throws(SystemError) in
        try Spawn.start(program, arguments, searchPath: true) { actions in
            posix_spawn_file_actions_adddup2(&actions, pipe.write, 1)
        }
    }
    close(pipe.write)
    defer { close(pipe.read) }
    let pid = try spawned.get()
    let output = Spawn.readToEnd(pipe.read)
    return (Spawn.wait(pid), String(decoding: output, as: UTF8.self))
}

/// A registry over a MIME database written by the test: `globs2` lines, magic sections and
/// subclass/alias lines, so rules can be tested without depending on the system's database.
struct MIMEDatabaseFixture {
    var globs: [String] = []
    var magic: [(priority: Int, type: String, lines: [[UInt8]])] = []
    var subclasses: [String] = []
    var aliases: [String] = []

    /// One magic line: `[indent]>offset=<len><value>[&mask][~word][+range]\n`.
    static func rule(indent: Int = 0, offset: Int, _ value: [UInt8], mask: [UInt8]? = nil,
                     wordSize: Int? = nil, range: Int? = nil) -> [UInt8] {
        var line: [UInt8] = []
        if indent > 0 { line += Array(String(indent).utf8) }
        line += Array(">\(offset)=".utf8)
        line += [UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        if let mask { line += [UInt8(ascii: "&")] + mask }
        if let wordSize { line += Array("~\(wordSize)".utf8) }
        if let range { line += Array("+\(range)".utf8) }
        return line + [0x0A]
    }

    func write(into directory: TemporaryDirectory, at name: String = "mime") -> String {
        let base = directory.makeDirectory(name)
        directory.write(name + "/globs2", "# generated\n" + globs.map { $0 + "\n" }.joined())
        var magicBytes = Array("MIME-Magic".utf8) + [0, 0x0A]
        for section in magic {
            magicBytes += Array("[\(section.priority):\(section.type)]\n".utf8)
            for line in section.lines { magicBytes += line }
        }
        directory.write(name + "/magic", magicBytes)
        directory.write(name + "/subclasses", subclasses.map { $0 + "\n" }.joined())
        directory.write(name + "/aliases", aliases.map { $0 + "\n" }.joined())
        return base
    }
}
