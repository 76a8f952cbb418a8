// wharf-access-stress STATE_DIR FILES_DIR OPERATIONS WORKER [GO_FILE]
//
// One of several processes hammering one shared state store, for the multi-process test in
// WharfAccessTests: it runs OPERATIONS store operations (grants, resolutions, bookmarks, reads,
// releases, listings, remembered folders — a mix of short writes and reads) and reports how many
// failed, and how many of those were "database is locked". Exit status 0 only when none failed.
// With GO_FILE, it opens the store and then waits for that file to appear before starting, so
// that every worker's operations overlap.
import Glibc
import WharfAccess
import WharfSystem

let arguments = CommandLine.arguments
guard arguments.count == 5 || arguments.count == 6, let operations = Int(arguments[3]), let worker = Int(arguments[4]) else {
    print("usage: wharf-access-stress STATE_DIR FILES_DIR OPERATIONS WORKER [GO_FILE]")
    exit(2)
}
let stateDirectory = FilePath(arguments[1])!
let filesDirectory = FilePath(arguments[2])!

var done = 0
var lockedFailures = 0
var otherFailures = 0
var firstErrors: [String] = []

/// Counts one operation and classifies its failure, if any.
@MainActor func attempt<T>(_ body: () throws(AccessError) -> T) -> T? {
    done += 1
    do {
        return try body()
    } catch {
        let text = error.description
        if text.contains("locked") || text.contains("busy") { lockedFailures += 1 } else { otherFailures += 1 }
        if firstErrors.count < 5 { firstErrors.append(text) }
        return nil
    }
}

let store: AccessStore
do {
    (store, _) = try AccessStore.open(stateDirectory: stateDirectory)
} catch {
    print("done=0 locked=\(error.description.contains("locked") ? 1 : 0) other=1 first=\(error)")
    exit(1)
}

let app = "stress-\(worker % 2)"
let client = ClientID("worker-\(worker)")
let files = (try? DirectoryEntries.names(in: filesDirectory))?.map { filesDirectory.appending($0) }.sorted() ?? []
guard !files.isEmpty else {
    print("done=0 locked=0 other=1 first=no files in \(filesDirectory)")
    exit(1)
}

if arguments.count == 6 {
    var waited = 0
    while access(arguments[5], F_OK) != 0 {
        guard waited < 60_000 else {
            print("done=0 locked=0 other=1 first=\(arguments[5]) never appeared")
            exit(1)
        }
        usleep(1000)
        waited += 1
    }
}

var leases: [String] = []
var bookmarks: [String] = []
var round = 0
while done < operations {
    let path = files[(worker + round / 9) % files.count]
    let url = FileURL.from(path: path)
    switch round % 9 {
    case 0:
        guard let identity = try? FileIdentity.of(path) else { otherFailures += 1; done += 1; break }
        _ = attempt { () throws(AccessError) in
            store.grant(app: app, client: client, path: path, identity: identity,
                        birth: FileBirth.of(path, followSymlinks: true)?.birth, isDirectory: false,
                        readOnly: round % 2 == 0)
        }
    case 1:
        if let lease = attempt({ () throws(AccessError) in try store.resolve(app: app, client: client, url: url) }) {
            leases.append(lease.accessId)
        }
    case 2:
        if let token = attempt({ () throws(AccessError) in try store.createBookmark(app: app, client: client, url: url) }) {
            bookmarks.append(token)
        }
    case 3:
        if let token = bookmarks.last,
           let lease = attempt({ () throws(AccessError) in try store.resolve(app: app, client: client, bookmark: token) }) {
            leases.append(lease.accessId)
        }
    case 4:
        if let id = leases.last {
            _ = attempt { () throws(AccessError) in try store.read(client: client, accessId: id, offset: 0, length: 64) }
        }
    case 5:
        while let id = leases.popLast(), done < operations {
            _ = attempt { () throws(AccessError) in try store.release(client: client, accessId: id) }
        }
    case 6:
        _ = attempt { () throws(AccessError) in try store.list(app: app, client: client) }
    case 7:
        _ = attempt { () throws(AccessError) in
            store.rememberDirectory(app: app, customizationId: "c\(round % 3)", directory: filesDirectory)
        }
    default:
        _ = attempt { () throws(AccessError) in try store.rememberedDirectory(app: app, customizationId: "c\(round % 3)") }
    }
    round += 1
}
store.close()
print("done=\(done) locked=\(lockedFailures) other=\(otherFailures)"
    + (firstErrors.isEmpty ? "" : " first=" + firstErrors.joined(separator: " | ")))
exit(lockedFailures + otherFailures == 0 ? 0 : 1)
