import WharfAccess
import WharfJSON
import WharfSystem
import WharfTerminal

/// `wharf access list [--json]` and `wharf access revoke ID`: what apps were granted, for the
/// person at the keyboard.
///
/// Listing only reads: it opens an existing store read-only (``AccessStoreReader``) and never
/// creates one, so asking on a machine where Wharf never ran leaves nothing behind. What it
/// prints came from clients (app identities) and from file names (paths), so the table escapes
/// them (``TerminalText``); `--json` gives programs the exact bytes of each path as its `file:`
/// URL, with a display string beside it.
extension Subcommands {
    public static func run(_ command: AccessCommand, stateDirectory: FilePath?) -> Int32 {
        switch command {
        case .list(let json): return list(stateDirectory: stateDirectory, json: json)
        case .revoke(let id): return revoke(id, stateDirectory: stateDirectory)
        }
    }

    private static func list(stateDirectory: FilePath?, json: Bool) -> Int32 {
        let entries: [AccessEntry]
        do {
            entries = try AccessStoreReader.open(stateDirectory: stateDirectory)?.entries() ?? []
        } catch {
            printError("cannot read the state store: \(error)")
            return 1
        }
        if json {
            print(document(entries).jsonText)
        } else if entries.isEmpty {
            // Where no store is, say so: a mistyped --state-dir must not read as "nothing granted".
            if let path = AccessStoreReader.databasePath(stateDirectory: stateDirectory), (try? FileStatus.ofLink(path)) == nil {
                print("No app holds access to anything (there is no state store at \(TerminalText.escape(bytes: path.bytes))).")
            } else {
                print("No app holds access to anything.")
            }
        } else {
            print(table(entries), terminator: "")
        }
        return 0
    }

    private static func revoke(_ id: String, stateDirectory: FilePath?) -> Int32 {
        // Nothing to revoke where there is no store; and none is made to find that out.
        if let path = AccessStoreReader.databasePath(stateDirectory: stateDirectory), (try? FileStatus.ofLink(path)) == nil {
            printError("no grant or bookmark has id \(TerminalText.escape(id)) (there is no state store at \(TerminalText.escape(bytes: path.bytes)))")
            return 1
        }
        do {
            let (store, warnings) = try AccessStore.open(stateDirectory: stateDirectory)
            defer { store.close() }
            for warning in warnings { printError(warning) }
            try store.revoke(id: id)
            print("Revoked \(TerminalText.escape(id)).")
            return 0
        } catch {
            printError("\(error)")
            return 1
        }
    }

    /// One row per entry, tab-separated, under a header; every field escaped.
    static func table(_ entries: [AccessEntry]) -> String {
        var output = "ID\tKIND\tAPP\tACCESS\tLEASES\tCREATED\tPATH\n"
        for entry in entries {
            let mode = entry.readOnly ? "read" : "read-write"
            let fields = [entry.id, entry.kind.rawValue, TerminalText.escape(entry.app), mode, String(entry.activeLeases),
                          ISO8601.format(entry.created), TerminalText.escape(bytes: entry.path.bytes)]
            output += fields.joined(separator: "\t") + "\n"
        }
        return output
    }

    /// `{"entries": [{id, kind, app, url, path, readOnly, isDirectory, activeLeases, created,
    /// holder?}]}`: `url` carries the path's exact bytes, `path` is for reading (bytes that
    /// are not UTF-8 shown as U+FFFD).
    static func document(_ entries: [AccessEntry]) -> JSON {
        .object(["entries": .array(entries.map { entry in
            var object: JSONObject = [
                "id": .string(entry.id), "kind": .string(entry.kind.rawValue), "app": .string(entry.app),
                "url": .string(entry.url), "path": .string(entry.path.description), "readOnly": .bool(entry.readOnly),
                "isDirectory": .bool(entry.isDirectory), "activeLeases": .int(Int64(entry.activeLeases)),
                "created": .string(ISO8601.format(entry.created)),
            ]
            if let holder = entry.holder { object["holder"] = .string(holder) }
            return .object(object)
        })])
    }
}
