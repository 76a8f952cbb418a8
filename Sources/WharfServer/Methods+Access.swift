import WharfAccess
import WharfJSON
import WharfJSONRPC
import WharfSystem

extension MethodTable {
    /// Security-scoped access: leases on what a human picked, bookmarks that outlive the
    /// process, and I/O through a lease for clients that cannot touch the file system.
    mutating func addAccessMethods() {
        add("resolveAccess", .immediate { session, params in
            let url = try params.optionalString("url")
            let bookmark = try params.optionalString("bookmark")
            let lease: Lease
            switch (url, bookmark) {
            case (let url?, nil):
                lease = try session.server.access.resolve(app: session.appIdentity, client: session.accessClient, url: url)
            case (nil, let bookmark?):
                lease = try session.server.access.resolve(app: session.appIdentity, client: session.accessClient, bookmark: bookmark)
            default:
                throw ResponseError.invalidParams("resolveAccess takes exactly one of url and bookmark")
            }
            return lease.json
        })
        add("releaseAccess", .immediate { session, params in
            let accessId = try params.string("accessId")
            try session.server.access.release(client: session.accessClient, accessId: accessId)
            return [:]
        })
        add("createBookmark", .immediate { session, params in
            let url = try params.string("url")
            let bookmark = try session.server.access.createBookmark(app: session.appIdentity, client: session.accessClient, url: url)
            return ["bookmark": .string(bookmark)]
        })
        add("listAccess", .immediate { session, _ in
            let entries = try session.server.access.list(app: session.appIdentity, client: session.accessClient)
            let leases = try session.server.access.activeLeaseCount(client: session.accessClient)
            return ["entries": .array(entries.map(\.json)), "activeLeases": .int(Int64(leases))]
        })
        add("revokeAccess", .immediate { session, params in
            let url = try params.optionalString("url")
            let bookmark = try params.optionalString("bookmark")
            guard (url == nil) != (bookmark == nil) else { throw ResponseError.invalidParams("revokeAccess takes exactly one of url and bookmark") }
            let count = try session.server.access.revoke(app: session.appIdentity, url: url, bookmark: bookmark)
            return ["revoked": .int(Int64(count))]
        })
        add("readFile", .deferred { session, params, reply in
            let accessId = try params.string("accessId")
            let offset = try params.optionalInt("offset", in: 0...Int64.max) ?? 0
            let length = try params.optionalInt("length", in: 0...Int64(AccessStore.maximumTransferLength)).map { Int($0) }
            let client = session.accessClient
            let store = session.server.access
            session.server.background {
                reply.answer(logger: session.logger) {
                    let (bytes, eof) = try store.read(client: client, accessId: accessId, offset: offset, length: length)
                    return ["base64": .string(Base64.encode(bytes)), "eof": .bool(eof)]
                }
            }
        })
        add("writeFile", .deferred { session, params, reply in
            let accessId = try params.string("accessId")
            let encoded = try params.string("base64")
            guard let bytes = Base64.decode(encoded) else { throw ResponseError.invalidParams("base64: not valid base64 (RFC 4648, padded)") }
            let offset = try params.optionalInt("offset", in: 0...Int64.max) ?? 0
            let truncate = try params.bool("truncate", default: false)
            let client = session.accessClient
            let store = session.server.access
            session.server.background {
                reply.answer(logger: session.logger) {
                    let written = try store.write(client: client, accessId: accessId, bytes: bytes, offset: offset, truncate: truncate)
                    return ["bytesWritten": .int(Int64(written))]
                }
            }
        })
    }
}

extension AccessError {
    var response: ResponseError {
        switch self {
        case .accessDenied, .readOnly:
            return ResponseError(.accessDenied, description)
        case .bookmarkInvalid(_, let lastKnownPath):
            return ResponseError(.bookmarkInvalid, description, data: lastKnownPath.map { ["lastKnownUrl": .string(FileURL.from(path: $0))] })
        case .unknownAccessId, .alreadyReleased:
            return ResponseError(.accessNotFound, description)
        case .tooLarge, .invalidArgument:
            return .invalidParams(description)
        case .io:
            return ResponseError(.fileOperationFailed, description)
        case .store(let failure):
            return ResponseError(.internalError, "the state store failed: \(failure.message)",
                                 data: ["store": .string(failure.kind.rawValue)])
        }
    }
}

extension Lease {
    var json: JSON {
        [
            "accessId": .string(accessId),
            "url": .string(url),
            "path": .string(path.description),
            "readOnly": .bool(readOnly),
            "isStale": .bool(isStale),
            "bookmark": bookmark.map(JSON.string) ?? .null,
            "isDirectory": .bool(isDirectory),
        ]
    }
}

extension AccessEntry {
    var json: JSON {
        var object: JSONObject = [
            "id": .string(id),
            "kind": .string(kind.rawValue),
            "url": .string(url),
            "path": .string(path.description),
            "readOnly": .bool(readOnly),
            "isDirectory": .bool(isDirectory),
            "activeLeases": .int(Int64(activeLeases)),
            "created": .string(ISO8601.format(created)),
        ]
        if let bookmark { object["bookmark"] = .string(bookmark) }
        return .object(object)
    }
}
