#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import WharfAccess
import WharfSystem

/// A fresh directory, removed with everything in it when the value goes away.
///
/// It is `work` inside a private `mkdtemp` directory, so that a bookmark search, which looks
/// through the folders beside a file's folder, only ever sees this test's own files.
final class TemporaryDirectory {
    let path: String
    private let base: String

    init() {
        var template = Array("/tmp/wharf-access-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        base = String(cString: made!)
        path = base + "/work"
        precondition(mkdir(path, 0o700) == 0)
    }

    deinit { Self.remove(base) }

    func file(_ name: String) -> String { FilePath.join(path, name) }

    /// Removes a tree without following symbolic links.
    static func remove(_ path: String) {
        if (try? FileStatus.ofLink(path))?.kind == .directory {
            for name in (try? DirectoryEntries.names(in: path)) ?? [] { remove(FilePath.join(path, name)) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// Writes `text` to `path`, creating or truncating it.
func writeFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "open \(path): \(String(cString: strerror(errno)))")
    defer { close(fd) }
    let bytes = Array(text.utf8)
    precondition(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
}

/// What a file holds, as text.
func readFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    precondition(fd >= 0, "open \(path): \(String(cString: strerror(errno)))")
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        out += buffer[..<got]
    }
    return String(decoding: out, as: UTF8.self)
}

/// An editor's save: the new content goes to a temporary, which is renamed over the original.
func atomicSave(_ path: String, _ text: String) {
    let temporary = path + ".tmp-save"
    writeFile(temporary, text)
    precondition(rename(temporary, path) == 0)
}

func makeDirectory(_ path: String) { precondition(mkdir(path, 0o755) == 0, "mkdir \(path)") }
func makeSymlink(_ target: String, at path: String) { precondition(symlink(target, path) == 0, "symlink \(path)") }
func move(_ from: String, _ to: String) { precondition(rename(from, to) == 0, "rename \(from)") }
func identity(_ path: String) -> FileIdentity { try! FileIdentity.of(path) }

func memoryStore() throws -> AccessStore {
    try AccessStore.open(stateDirectory: ":memory:").0
}

/// A store with `path` granted to `client` of `app`, the way a completed dialog does it.
func grant(_ store: AccessStore, _ path: String, app: String = "editor", client: ClientID = "c1",
           readOnly: Bool = true) throws {
    try store.grant(app: app, client: client, path: path, identity: identity(path), readOnly: readOnly)
}

func url(_ path: String) -> String { FileURL.from(path: path) }

/// True for `.accessDenied`, whatever the message; the message must never name a path.
func isDenied(_ error: AccessError, revealing paths: [String] = []) -> Bool {
    guard case .accessDenied(let message) = error else { return false }
    return !paths.contains { message.contains($0) } && !message.contains("/")
}

/// The error `body` throws, or nil.
func accessError<T>(_ body: () throws(AccessError) -> T) -> AccessError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
