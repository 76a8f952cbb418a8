import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// A fresh directory, removed with everything in it when the value goes away.
///
/// It is `work` inside a private scratch directory, so that a bookmark search, which looks
/// through the folders beside a file's folder, only ever sees this test's own files.
final class WorkDirectory {
    private let scratch = ScratchDirectory("wharf-access")
    let path: FilePath

    init() {
        path = scratch.makeDirectory("work")
        setMode(path, 0o700)
    }

    func file(_ name: String) -> FilePath { path.appending(name) }
}

/// Writes `text` to `path`, creating or truncating it.
func writeFile(_ path: FilePath, _ text: String) { WharfTestSupport.writeFile(path, Array(text.utf8)) }

func makeDirectory(_ path: FilePath) { try! Syscalls.makeDirectories(path, mode: 0o755) }
func move(_ from: FilePath, _ to: FilePath) { WharfTestSupport.move(from, to: to) }

func memoryStore() throws -> AccessStore {
    try AccessStore.open(stateDirectory: FilePath(":memory:")).0
}

/// A store with `path` granted to `client` of `app`, the way a completed dialog does it.
func grant(_ store: AccessStore, _ path: FilePath, app: String = "editor", client: ClientID = "c1",
           readOnly: Bool = true) throws {
    let status = try FileStatus.of(path)
    store.grant(app: app, client: client, path: path, identity: identity(path),
                birth: FileBirth.of(path, followSymlinks: true)?.birth,
                isDirectory: status.kind == .directory, readOnly: readOnly)
}

func url(_ path: FilePath) -> String { path.url }

/// True for `.accessDenied`, whatever the message; the message must never name a path.
func isDenied(_ error: AccessError, revealing paths: [FilePath] = []) -> Bool {
    guard case .accessDenied(let message) = error else { return false }
    return !paths.contains { message.contains($0.description) } && !message.contains("/")
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

/// `path` with text appended, as the tests write it (`folder + "/sub/file.txt"`).
func + (path: FilePath, text: String) -> FilePath { FilePath(path.description + text)! }

extension AccessStore {
    /// `resolve(app:client:url:)` with a path, as the protocol allows.
    func resolve(app: String, client: ClientID, url path: FilePath) throws(AccessError) -> Lease {
        try resolve(app: app, client: client, url: path.description)
    }
}
