import WharfAccess
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension MethodTable {
    /// Security-scoped access: leases on what a human picked, bookmarks that outlive the
    /// process, and I/O through a lease for clients that cannot touch the file system. All of
    /// it but `releaseAccess` (memory only) opens files or reads the database: on the session's file queue.
    mutating func addAccessMethods() {
        onWorker(ResolveAccessRequest.self, on: .files) { session, request in
            let (access, app, client) = (session.server.access, session.appIdentity, session.accessClient)
            switch request.target {
            case .url(let url): return LeaseInfo(try access.resolve(app: app, client: client, url: url))
            case .bookmark(let token):
                return LeaseInfo(try access.resolve(app: app, client: client, bookmark: token, isLive: { session.isRunning }))
            }
        }
        onReadLoop(ReleaseAccessRequest.self) { session, request in
            try session.server.access.release(client: session.accessClient, accessId: request.accessId)
            return Empty()
        }
        // Durable before it is answered: a bookmark the client stores must survive a crash.
        onWorker(CreateBookmarkRequest.self, on: .files) { session, request in
            BookmarkResult(bookmark: try session.server.access.createBookmark(
                app: session.appIdentity, client: session.accessClient, url: request.url))
        }
        onWorker(ListAccessRequest.self, on: .files) { session, _ in
            let access = session.server.access
            let entries = try access.list(app: session.appIdentity, client: session.accessClient)
            return ListAccessResult(entries: entries.map(AccessEntryInfo.init),
                                    activeLeases: Int64(access.activeLeaseCount(client: session.accessClient)))
        }
        onWorker(RevokeAccessRequest.self, on: .files) { session, request in
            let (url, bookmark): (String?, String?)
            switch request.target {
            case .url(let value): (url, bookmark) = (value, nil)
            case .bookmark(let value): (url, bookmark) = (nil, value)
            }
            return RevokeAccessResult(revoked: Int64(try session.server.access.revoke(app: session.appIdentity, url: url, bookmark: bookmark)))
        }
        // Base64 is 4/3 of the bytes read.
        onWorker(ReadFileRequest.self, on: .files, reserving: { 4 * Int($0.length ?? ReadFileRequest.maximumLength) / 3 + 64 }) { session, request in
            let (bytes, eof) = try session.server.access.read(client: session.accessClient, accessId: request.accessId,
                                                             offset: request.offset, length: request.length.map { Int($0) })
            return ReadFileResult(base64: Base64.encode(bytes), eof: eof)
        }
        onWorker(WriteFileRequest.self, on: .files) { session, request in
            guard let bytes = Base64.decode(request.base64) else {
                throw ResponseError.invalidParams("base64: not valid base64 (RFC 4648, padded)")
            }
            let written = try session.server.access.write(client: session.accessClient, accessId: request.accessId, bytes: bytes,
                                                          offset: request.offset, truncate: request.truncate)
            return WriteFileResult(bytesWritten: Int64(written))
        }
    }
}

extension LeaseInfo {
    init(_ lease: Lease) {
        self.init(accessId: lease.accessId, url: lease.url, path: lease.path.description, readOnly: lease.readOnly,
                  isStale: lease.isStale, bookmark: lease.bookmark, isDirectory: lease.isDirectory)
    }
}

extension AccessEntryInfo {
    init(_ entry: AccessEntry) {
        self.init(id: entry.id, kind: entry.kind.rawValue, url: entry.url, path: entry.path.description, readOnly: entry.readOnly,
                  isDirectory: entry.isDirectory, activeLeases: Int64(entry.activeLeases), created: ISO8601.format(entry.created),
                  bookmark: entry.bookmark)
    }
}
