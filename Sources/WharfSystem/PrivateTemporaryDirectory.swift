import Glibc

/// A new directory only this user can enter (`mkdtemp`, mode 0700), for files another program
/// writes for us to read (a file manager's chosen paths): nobody else can create, replace or
/// read a file in it. Removed, with the plain files in it, by ``remove()``.
public final class PrivateTemporaryDirectory: Sendable {
    public let path: FilePath

    /// Creates one in `$XDG_RUNTIME_DIR` when it is set, else in `$TMPDIR`, else `/tmp`.
    public init() throws(SystemError) {
        let parent = ProcessControl.runtimeDirectory
            ?? ProcessControl.environment("TMPDIR").flatMap { FilePath(bytes: $0) }.flatMap { $0.isAbsolute ? $0 : nil }
            ?? FilePath(stringLiteral: "/tmp")
        var template = parent.appending("wharf-XXXXXX").bytes.map { CChar(bitPattern: $0) } + [0]
        guard mkdtemp(&template) != nil else { throw .current("mkdtemp", path: parent) }
        path = FilePath(unchecked: template.dropLast().map { UInt8(bitPattern: $0) })
    }

    /// The path of `name` in it.
    public func file(_ name: String) -> FilePath { path.appending(name) }

    /// The whole of the file `name`, or nil when there is none.
    public func read(_ name: String) -> [UInt8]? {
        guard let file = try? FileDescriptor.open(file(name), O_RDONLY | O_NOFOLLOW) else { return nil }
        defer { file.close() }
        return try? file.readToEnd()
    }

    /// Removes `name` from it, if it is there.
    public func removeFile(_ name: String) {
        _ = file(name).withCString { unlink($0) }
    }

    /// Removes every plain file in it, then it.
    public func remove() {
        if let (entries, handle) = try? DirectoryReader.read(path) {
            for entry in entries { _ = path.appending(entry.name).withCString { unlink($0) } }
            handle.close()
        }
        _ = path.withCString { rmdir($0) }
    }
}
