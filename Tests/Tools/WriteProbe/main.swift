// wharf-write-probe: drives AtomicWriter from the command line, for the tests that need a
// separate process (a file-size limit, a dropped user, kill -9 mid-write) and for the export
// benchmark until the server can be driven instead.
//
//   wharf-write-probe [options] item...
//   items:   --bytes DEST TEXT     write TEXT (UTF-8)
//            --file DEST SOURCE    copy SOURCE
//            --base64 DEST FILE    decode the strict base64 text in FILE, write the bytes
//   options: --overwrite           every item may replace an existing destination
//            --fsize-limit BYTES   set RLIMIT_FSIZE and ignore SIGXFSZ, so writes fail with EFBIG
//            --hold                print "holding <path of the temporary file>" at the first
//                                  progress report and wait there forever (to be killed)
//            --progress            print "progress <written> <total>" for each report
//   or:      --remove-orphans DIR  sweep DIR and print each path removed
//
// Prints "ok" or the error; exits 0 (written), 1 (failed), 2 (exists), 3 (cancelled), 64 (usage).
import Glibc
import WharfFileWriting
import WharfSystem
import WharfTestSupport

struct Request {
    var items: [ExportItem] = []
    var hold = false
    var showProgress = false
}

func readWholeFile(_ path: FilePath) -> [UInt8] {
    guard let file = try? FileDescriptor.open(path, O_RDONLY), let count = try? Int(file.status().size)
    else { usage("cannot open \(path)") }
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        // The server holds a document's text in memory as it arrives; huge pages keep this
        // stand-in for that from costing a page fault per 4 KiB.
        MemoryAdvice.preferHugePages(UnsafeMutableRawBufferPointer(buffer))
        guard let got = try? file.read(filling: UnsafeMutableRawBufferPointer(buffer)), got == count
        else { usage("cannot read \(path)") }
        initialized = got
    }
}

func parse(_ commandLine: [String]) -> Request {
    var arguments = commandLine
    var request = Request()
    var overwrite = false
    func next(_ what: String) -> String {
        guard !arguments.isEmpty else { usage("missing \(what)") }
        return arguments.removeFirst()
    }
    func nextPath(_ what: String) -> FilePath {
        guard let path = FilePath(next(what)) else { usage("\(what) is not a path") }
        return path
    }
    while !arguments.isEmpty {
        switch arguments.removeFirst() {
        case "--remove-orphans":
            for path in AtomicWriter.removeOrphans(in: nextPath("directory")) { say(path.description) }
            exit(0)
        case "--overwrite":
            overwrite = true
        case "--hold":
            request.hold = true
        case "--progress":
            request.showProgress = true
        case "--fsize-limit":
            guard let limit = rlim_t(next("byte count")) else { usage("--fsize-limit needs a number") }
            signal(SIGXFSZ, SIG_IGN)
            var rl = rlimit(rlim_cur: limit, rlim_max: limit)
            guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &rl) == 0 else { usage("setrlimit failed") }
        case "--bytes":
            let destination = nextPath("destination")
            request.items.append(ExportItem(destination: destination, source: .bytes(Array(next("text").utf8)), overwrite: false))
        case "--file":
            let destination = nextPath("destination")
            request.items.append(ExportItem(destination: destination, source: .file(path: nextPath("source")), overwrite: false))
        case "--base64":
            let destination = nextPath("destination")
            let text = readWholeFile(nextPath("base64 file"))
            guard let bytes = text.withUnsafeBufferPointer({ Base64.decode(utf8: $0) }) else { usage("not base64") }
            request.items.append(ExportItem(destination: destination, source: .bytes(bytes), overwrite: false))
        case let other:
            usage("unknown argument \(other)")
        }
    }
    for index in request.items.indices { request.items[index].overwrite = overwrite }
    return request
}

let request = parse(Array(CommandLine.arguments.dropFirst()))
let items = request.items
let holding = request.hold
let printing = request.showProgress
let firstDirectory = items.first.map(\.destination.directory)
do {
    try AtomicWriter.write(items, progress: { progress in
        if printing { say("progress \(progress.bytesWritten) \(progress.totalBytes)") }
        if holding, let firstDirectory {
            // Name our temporary file so the test can watch it, then wait to be killed.
            let mine = Array((AtomicWriter.temporaryPrefix + String(getpid()) + "-").utf8)
            let names = (try? DirectoryEntries.names(in: firstDirectory)) ?? []
            let found = names.first { $0.starts(with: mine) }.map { firstDirectory.appending($0).description } ?? ""
            say("holding \(found)")
            while true { pause() }
        }
    })
    say("ok")
    exit(0)
} catch {
    say(error.description)
    switch error {
    case .failed: exit(1)
    case .exists: exit(2)
    case .cancelled: exit(3)
    }
}
