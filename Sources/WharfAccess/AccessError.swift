import WharfSystem

/// Why an access request failed. Messages are written for the client that asked, so denials
/// never name a path: a client must not learn anything about files it was not given.
public enum AccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The client holds no grant that covers the request (no grant, another client's grant, `..`
    /// leading out of a grant, a symlink swapped in, a file that is no longer the one granted).
    case accessDenied(String)
    /// The bookmark is malformed, forged, edited, revoked, belongs to another app identity, or
    /// its file is gone (then `lastKnownPath` says where it was last seen, for the owning app).
    case bookmarkInvalid(String, lastKnownPath: FilePath?)
    /// No lease with this id is held by this client (never issued, or another client's).
    case unknownAccessId(String)
    /// This lease was already released; each `resolve` is balanced by exactly one `release`.
    case alreadyReleased(String)
    /// A write through a read-only lease (an importer's pick).
    case readOnly(String)
    /// A read or write larger than one call may move (`AccessStore.maximumTransferLength`).
    case tooLarge(String)
    /// An argument outside what the method accepts (negative offset, a URL that is not `file:`).
    case invalidArgument(String)
    /// The file system refused an operation on a file the client does hold access to.
    case io(SystemError)
    /// The state store failed (the message carries SQLite's own words and the statement).
    case store(String)

    public var description: String {
        switch self {
        case .accessDenied(let message): "access denied: \(message)"
        case .bookmarkInvalid(let message, let path):
            path.map { "invalid bookmark: \(message) (last known at \($0))" } ?? "invalid bookmark: \(message)"
        case .unknownAccessId(let message): "unknown access id: \(message)"
        case .alreadyReleased(let message): "already released: \(message)"
        case .readOnly(let message): "read-only access: \(message)"
        case .tooLarge(let message): "too large: \(message)"
        case .invalidArgument(let message): "invalid argument: \(message)"
        case .io(let error): "I/O error: \(error)"
        case .store(let message): "state store error: \(message)"
        }
    }
}
