import CSQLite
import Glibc
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
    /// The client already holds ``AccessStore/maximumLeasesPerClient`` leases.
    case tooManyLeases(limit: Int)
    /// An argument outside what the method accepts (negative offset, a URL that is not `file:`).
    case invalidArgument(String)
    /// The file system refused an operation on a file the client does hold access to.
    case io(SystemError)
    /// The state store failed: what failed (a full disk, a read-only file system, a damaged
    /// database, another process's lock held too long), with SQLite's own words.
    case store(StoreFailure)

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
        case .tooManyLeases(let limit):
            "too many leases: this client already holds \(limit) leases, the most one connection may hold; "
                + "release some with releaseAccess before resolving again"
        case .io(let error): "I/O error: \(error)"
        case .store(let failure): "state store error: \(failure)"
        }
    }
}

/// Why the state store failed, in terms a person can act on.
public struct StoreFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The disk (or the user's quota) is full.
        case diskFull
        /// The database or its directory cannot be written (a read-only file system, permissions).
        case readOnly
        /// The database file is damaged.
        case corrupt
        /// Another process held the database locked for longer than the busy timeout.
        case locked
        /// The file system reported an I/O error.
        case ioError
        /// The store was closed (the process is ending).
        case closed
        case other
    }

    public var kind: Kind
    /// What was being done, and SQLite's own words.
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    static let closed = StoreFailure(kind: .closed, message: "the state store is closed")

    init(_ error: SQLiteError, doing what: String) {
        switch error.primaryCode {
        case SQLITE_FULL: kind = .diskFull
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_AUTH: kind = .readOnly
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .locked
        case SQLITE_IOERR: kind = .ioError
        default: kind = .other
        }
        message = "could not \(what): \(Self.phrase(kind))\(error.message)"
    }

    /// A system call on the store's files failed (creating the database file in a directory on
    /// a read-only file system, say): the same kinds as SQLite's own failures, so that a client
    /// hears `readOnly` whichever of the two noticed first.
    init(_ error: SystemError, doing what: String) {
        switch error.code {
        case EROFS, EACCES, EPERM: kind = .readOnly
        case ENOSPC, EDQUOT: kind = .diskFull
        case EIO: kind = .ioError
        default: kind = .other
        }
        message = "could not \(what): \(Self.phrase(kind))\(error)"
    }

    private static func phrase(_ kind: Kind) -> String {
        switch kind {
        case .diskFull: "the disk is full — "
        case .readOnly: "it cannot be written — "
        case .corrupt: "the database is damaged — "
        case .locked: "another process held it locked too long — "
        case .ioError: "the file system reported an I/O error — "
        case .closed, .other: ""
        }
    }

    public var description: String { message }
}
