#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfJSON
import WharfSystem

/// The scratch folder a transcript runs in: `root/fixtures` holds its sample files,
/// `root/state` is the server's `XDG_STATE_HOME`. Removed when the value goes away.
public final class ConformanceScratch: @unchecked Sendable {
    /// Symbolic links resolved, so that paths and URLs the server reports compare equal.
    public let root: String
    public var fixtures: String { root + "/fixtures" }
    public var state: String { root + "/state" }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(fixtures entries: [(path: String, content: JSON)]) throws(FixtureError) {
        var template = Array("/tmp/wharf-conformance-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw FixtureError(description: "mkdtemp failed: \(String(cString: strerror(errno)))") }
        let created = String(cString: made)
        root = (try? FilePath.resolve(created)) ?? created
        try Self.makeDirectory(fixtures)
        try Self.makeDirectory(state)
        for (path, content) in entries {
            guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                throw FixtureError(description: "fixture path \"\(path)\" must be relative and stay inside the fixtures folder")
            }
            try create(path, ConformancePattern.substitutePaths(content, fixtures: self.fixtures))
        }
    }

    private func create(_ relative: String, _ content: JSON) throws(FixtureError) {
        let path = fixtures + "/" + relative
        var parent = fixtures
        for component in relative.split(separator: "/").dropLast() {
            parent += "/" + component
            try Self.makeDirectory(parent)
        }
        switch content {
        case .string(let text): try Self.write(Array(text.utf8), to: path)
        case .object(let members) where members.count == 1:
            let (kind, value) = (members.members[0].key, members.members[0].value)
            switch (kind, value) {
            case ("json", _): try Self.write(value.serialized(), to: path)
            case ("base64", .string(let text)):
                guard let bytes = Base64.decode(text) else { throw FixtureError(description: "fixture \(relative): invalid base64") }
                try Self.write(bytes, to: path)
            case ("size", .int(let size)) where size >= 0:
                try Self.write([], to: path)
                guard truncate(path, off_t(size)) == 0 else { throw Self.failure("truncate", path) }
            case ("directory", .bool(true)): try Self.makeDirectory(path)
            case ("symlink", .string(let target)):
                guard symlink(target, path) == 0 else { throw Self.failure("symlink", path) }
            default: throw FixtureError(description: "fixture \(relative): unknown content \(content.jsonText)")
            }
        default: throw FixtureError(description: "fixture \(relative): unknown content \(content.jsonText)")
        }
    }

    private static func makeDirectory(_ path: String) throws(FixtureError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw failure("mkdir", path) }
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(FixtureError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("write", path) }
            offset += written
        }
    }

    private static func failure(_ operation: String, _ path: String) -> FixtureError {
        FixtureError(description: "\(operation) \(path): \(String(cString: strerror(errno)))")
    }

    deinit { Self.remove(root) }

    /// Removes a tree without following symbolic links; best effort.
    static func remove(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            chmod(path, 0o755)
            if let folder = opendir(path) {
                var names: [String] = []
                while let entry = readdir(folder) {
                    let name = DirectoryEntries.name(of: entry)
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(folder)
                for name in names { remove(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
