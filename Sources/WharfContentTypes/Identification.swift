import WharfSystem

/// What a file is.
public struct Identification: Sendable, Equatable {
    /// How the answer was reached.
    public enum Source: String, Sendable, Equatable {
        /// The name: a glob of the MIME database or a declared filename extension. Packages
        /// (directories whose extension declares a package type) also count here.
        case `extension`
        /// The first bytes of the file matched a magic rule.
        case magic
        /// Nothing specific matched: text-versus-binary, an empty file.
        case fallback
        /// What the file system says the object is: a plain directory, an unfollowed symlink, a
        /// FIFO, socket or device. These need neither a name nor the contents.
        case fileSystem
    }

    public var identifier: String
    /// The shared-mime-info type (canonical), e.g. `inode/directory` for folders and packages.
    public var mimeType: String
    public var source: Source

    public init(identifier: String, mimeType: String, source: Source) {
        self.identifier = identifier
        self.mimeType = mimeType
        self.source = source
    }
}

/// Why one path could not be identified. A batch reports this per path and goes on.
public struct IdentifyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The path itself could not be examined (missing, a component is not a directory, no
        /// permission to search a directory on the way, …).
        case inaccessible(SystemError)
        /// The path is a symlink whose target does not exist (or loops); the link was followed
        /// because the caller asked to.
        case brokenSymlink(SystemError)
        /// The contents had to be read to decide and could not be.
        case unreadable(SystemError)
    }

    public var path: FilePath
    public var reason: Reason

    public init(path: FilePath, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .inaccessible(let error):
            return "cannot identify \(path): \(error.operation) failed: \(error.reason)"
        case .brokenSymlink(let error):
            return "cannot identify \(path): it is a symbolic link whose target cannot be reached (\(error.reason))"
        case .unreadable(let error):
            return "cannot identify \(path): its contents cannot be read (\(error.operation): \(error.reason))"
        }
    }
}
