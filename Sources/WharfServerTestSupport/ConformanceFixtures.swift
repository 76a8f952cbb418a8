import Glibc
import WharfTestSupport
import WharfJSON
import WharfSystem

/// The scratch folder a transcript runs in: `root/fixtures` holds its sample files,
/// `root/state` is the server's `XDG_STATE_HOME`. Removed when the value goes away.
public final class ConformanceScratch: Sendable {
    private let scratch = ScratchDirectory("wharf-conformance")
    /// Symbolic links resolved, so that paths and URLs the server reports compare equal.
    public var root: String { scratch.path.description }
    public var fixtures: String { root + "/fixtures" }
    public var state: String { root + "/state" }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(fixtures entries: [(path: String, content: JSON)]) throws(FixtureError) {
        scratch.makeDirectory("fixtures")
        scratch.makeDirectory("state")
        for (path, content) in entries {
            guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                throw FixtureError(description: "fixture path \"\(path)\" must be relative and stay inside the fixtures folder")
            }
            try create(path, ConformancePattern.substitutePaths(content, fixtures: self.fixtures))
        }
    }

    private func create(_ relative: String, _ content: JSON) throws(FixtureError) {
        let name = "fixtures/" + relative
        switch content {
        case .string(let text): scratch.write(name, text)
        case .object(let members) where members.count == 1:
            let (kind, value) = (members.members[0].key, members.members[0].value)
            switch (kind, value) {
            case ("json", _): scratch.write(name, value.serialized())
            case ("base64", .string(let text)):
                guard let bytes = Base64.decode(text) else { throw FixtureError(description: "fixture \(relative): invalid base64") }
                scratch.write(name, bytes)
            case ("size", .int(let size)) where size >= 0:
                let file = scratch.write(name, [])
                guard file.withCString({ truncate($0, off_t(size)) }) == 0 else {
                    throw FixtureError(description: "truncate \(file): \(SystemError.current("truncate"))")
                }
            case ("directory", .bool(true)): scratch.makeDirectory(name)
            case ("symlink", .string(let target)): scratch.symlink(name, to: target)
            default: throw FixtureError(description: "fixture \(relative): unknown content \(content.jsonText)")
            }
        default: throw FixtureError(description: "fixture \(relative): unknown content \(content.jsonText)")
        }
    }
}
