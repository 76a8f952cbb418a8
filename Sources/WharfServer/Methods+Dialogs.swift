import WharfDialogs
import WharfJSON
import WharfJSONRPC
import WharfSystem

extension MethodTable {
    /// The importer, the exporter, and the frontend presenter's side of a dialog.
    mutating func addDialogMethods() {
        add("presentImporter", .deferred { session, params, reply in
            let request = try DialogParams.importer(params)
            let (engine, presenter, types) = (session.server.engine, try session.presenter(), session.contentTypeOracle)
            _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                   presenter: presenter, types: types, announce: session.announcer(reply))
        })
        add("presentExporter", .deferred { session, params, reply in
            let request = try DialogParams.exporter(params)
            let (engine, presenter, types) = (session.server.engine, try session.presenter(), session.contentTypeOracle)
            _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                   presenter: presenter, types: types, announce: session.announcer(reply))
        })
        add("cancel", .immediate { session, params in
            let id = DialogID(rawValue: try params.string("dialogId"))
            return ["cancelled": .bool(try session.server.engine.cancel(client: session.dialogClient, id: id))]
        })
        add("dialog/list", .deferred { session, params, reply in
            let id = DialogID(rawValue: try params.string("dialogId"))
            let directory = try params.optionalString("directory")
            let cursor = try params.optionalString("cursor")
            let limit = try params.optionalInt("limit", in: 1...Int64(Int32.max)).map { Int($0) }
            session.server.background {
                reply.answer(logger: session.logger) {
                    try session.server.engine.list(client: session.dialogClient, id: id, directory: directory, cursor: cursor, limit: limit).json
                }
            }
        })
        add("dialog/choose", .deferred { session, params, reply in
            let id = DialogID(rawValue: try params.string("dialogId"))
            let engine = session.server.engine
            let client = session.dialogClient
            if let urls = try params.optionalStringArray("urls") {
                session.server.background {
                    reply.answer(logger: session.logger) {
                        try engine.choose(client: client, id: id, urls: urls)
                        return [:]
                    }
                }
            } else if let url = try params.optionalString("url") {
                let contentType = try params.optionalString("contentType")
                let overwrite = try params.bool("overwrite", default: false)
                session.server.background {
                    reply.answer(logger: session.logger) {
                        try engine.save(client: client, id: id, url: url, contentType: contentType, overwrite: overwrite)
                        return [:]
                    }
                }
            } else {
                throw ResponseError.invalidParams("dialog/choose needs urls (an importer's picks) or url (an exporter's destination)")
            }
        })
        add("dialog/dismiss", .immediate { session, params in
            let id = DialogID(rawValue: try params.string("dialogId"))
            try session.server.engine.dismiss(client: session.dialogClient, id: id)
            return [:]
        })
        add("dialog/fail", .immediate { session, params in
            let id = DialogID(rawValue: try params.string("dialogId"))
            let message = try params.string("message")
            try session.server.engine.fail(client: session.dialogClient, id: id, message: "the presenter failed: \(message)")
            return [:]
        })
    }
}

extension ClientSession {
    /// The engine's view of this client's content types, snapshotted for one dialog.
    var contentTypeOracle: any ContentTypeOracle { ContentTypeOracleAdapter(scope: contentTypes) }

    /// Answers `present…` with `{dialogId}` when the engine announces the dialog: before the
    /// presenter hears of it, so `presenter/show` always follows the response.
    func announcer(_ reply: Reply) -> @Sendable (DialogID) -> Void {
        { id in reply.succeed(["dialogId": .string(id.rawValue)]) }
    }
}

extension DirectoryListing {
    var json: JSON {
        var object: JSONObject = [
            "directory": .string(FileURL.from(path: directory)),
            "parent": parent.map { .string(FileURL.from(path: $0)) } ?? .null,
            "entries": .array(entries.map(\.json)),
        ]
        if let nextCursor { object["nextCursor"] = .string(nextCursor) }
        return .object(object)
    }
}

extension DirectoryEntry {
    var json: JSON {
        [
            "name": .string(displayName),
            "url": .string(url),
            "isDirectory": .bool(isDirectory),
            "isPackage": .bool(isPackage),
            "isHidden": .bool(isHidden),
            "isSymlink": .bool(isSymlink),
            "contentType": .string(contentType),
            "size": .int(size),
            "modified": .string(ISO8601.format(modified)),
            "enabled": .bool(enabled),
        ]
    }
}
