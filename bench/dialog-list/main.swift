// Times the dialog engine's listing of one directory: the names (one readdir pass, the sort)
// and every page (an fstatat per entry, name-only content types, `enabled`), paging through
// all of it as `dialog/list` does for a frontend. Prints one line per run:
// "<seconds> <entries> <seconds to the first page>". Built and driven by run.sh; not part of Package.swift.
//
// The content types come from a table of common extensions (the real registry is adapted by
// the server); see run.sh for what that means for the comparison.
import Glibc
import WharfDialogs
import WharfSystem

struct ExtensionTypes: ContentTypeOracle {
    static let byExtension: [String: String] = [
        "txt": "public.plain-text", "md": "net.daringfireball.markdown", "json": "public.json",
        "pdf": "com.adobe.pdf", "png": "public.png", "jpg": "public.jpeg", "jpeg": "public.jpeg",
        "html": "public.html", "swift": "public.swift-source", "c": "public.c-source",
        "h": "public.c-header", "zip": "public.zip-archive", "gz": "org.gnu.gnu-zip-archive",
        "mp3": "public.mp3", "mp4": "public.mpeg-4", "csv": "public.comma-separated-values-text",
        "xml": "public.xml", "svg": "public.svg-image", "gif": "com.compuserve.gif",
    ]
    static let parents: [String: String] = [
        "public.plain-text": "public.text", "net.daringfireball.markdown": "public.plain-text",
        "public.json": "public.text", "public.html": "public.text", "public.swift-source": "public.plain-text",
        "public.c-source": "public.plain-text", "public.c-header": "public.plain-text",
        "public.comma-separated-values-text": "public.plain-text", "public.xml": "public.text",
        "public.text": "public.data", "public.png": "public.image", "public.jpeg": "public.image",
        "com.compuserve.gif": "public.image", "public.svg-image": "public.image", "public.image": "public.data",
        "com.adobe.pdf": "public.data", "public.zip-archive": "public.data", "org.gnu.gnu-zip-archive": "public.data",
        "public.mp3": "public.data", "public.mpeg-4": "public.data", "public.data": "public.item",
        "public.folder": "public.directory", "public.directory": "public.item",
    ]

    func isKnown(_ identifier: String) -> Bool { identifier == "public.item" || Self.parents[identifier] != nil }
    func conforms(_ identifier: String, to other: String) -> Bool {
        var current: String? = identifier
        while let type = current {
            if type == other { return true }
            current = Self.parents[type]
        }
        return false
    }
    func identify(name: [UInt8], status: FileStatus, readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int) -> String {
        status.kind == .directory ? "public.folder" : type(forFilename: name)
    }
    func type(forFilename name: [UInt8]) -> String {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return "public.data" }
        let ext = String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
        return Self.byExtension[ext] ?? "public.data"
    }
    func preferredFilenameExtension(of identifier: String) -> String? { nil }
    func description(of identifier: String) -> String? { nil }
    func filters(for identifiers: [String]) -> DialogFilters { DialogFilters() }
    func isPackage(_ identifier: String) -> Bool { false }
}

struct SilentPresenter: DialogPresenter {
    var name: String { "bench" }
    func show(_ dialog: PresentedDialog) {}
    func hide(_ id: DialogID) {}
}

func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: list-bench DIRECTORY [RUNS]")
    exit(2)
}
let directory = arguments[1]
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5

struct NoEvents: DialogEventSink {
    func deliver(_ event: DialogEvent, to client: ClientID) {}
}

let engine = DialogEngine(sink: NoEvents())
let types = ExtensionTypes()
for _ in 0..<runs {
    let request = ImporterRequest(allowedContentTypes: ["public.text"], options: DialogOptions(defaultDirectory: FilePath(directory)))
    let id = try engine.present(
        client: 1, app: "bench", request: DialogEngine.check(request, types: types),
        presenter: SilentPresenter(), types: types)
    let start = seconds()
    var page = try engine.list(client: 1, id: id, directory: directory, limit: 10_000)
    let firstPage = seconds() - start
    var count = page.entries.count
    while let cursor = page.nextCursor {
        page = try engine.list(client: 1, id: id, cursor: cursor, limit: 10_000)
        count += page.entries.count
    }
    let elapsed = seconds() - start
    print(String(elapsed), count, String(firstPage))
    _ = try engine.cancel(client: 1, id: id)
}
