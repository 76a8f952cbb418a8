// A stand-in for `wharf types identify` / `wharf types stats`, built by run.sh from the
// release objects of WharfSystem and WharfContentTypes when $WHARF is not given, so the
// benchmark measures the module itself. Output: one line per file,
// `path<TAB>identifier<TAB>mimeType<TAB>source`, or `path<TAB>error<TAB>message`.
import Glibc
import WharfContentTypes

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "types" { arguments.removeFirst() }
if arguments.first == "stats" {
    // Same first line as `wharf types stats`.
    let statistics = ContentTypeRegistry.system.load()
    print("load time: \(Int((statistics.seconds * 1_000_000).rounded())) µs")
    print("MIME types: \(statistics.mimeTypes), glob rules: \(statistics.globRules), magic sections: \(statistics.magicSections)")
    exit(0)
}
if arguments.first == "--names" {
    // Name-only identification (the dialog engine's per-entry cost), over 100,000 names.
    let scope = ContentTypeScope(registry: .system)
    scope.registry.load()
    let extensions = ["png", "txt", "tar.gz", "JPG", "c", "md", "swift", "qqq", "", "py", "html", "mp4", "docx", "so.1"]
    let names = (0 ..< 100_000).map { "file\($0)" + (extensions[$0 % extensions.count].isEmpty ? "" : "." + extensions[$0 % extensions.count]) }
    var start = timespec(), end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    var conforming = 0
    for name in names where scope.conforms(scope.identifyByName(name, isDirectory: false), to: "public.image") {
        conforming += 1
    }
    clock_gettime(CLOCK_MONOTONIC, &end)
    let seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    print("names\t\(names.count)\tns_per_name\t\(seconds / Double(names.count) * 1e9)\timages\t\(conforming)")
    exit(0)
}
if arguments.first == "identify" { arguments.removeFirst() }
let scope = ContentTypeScope(registry: .system)
var output = ""
output.reserveCapacity(arguments.count * 96)
for path in arguments {
    switch scope.identify(path: path) {
    case .success(let found):
        output += "\(path)\t\(found.identifier)\t\(found.mimeType)\t\(found.source.rawValue)\n"
    case .failure(let error):
        output += "\(path)\terror\t\(error)\n"
    }
    if output.utf8.count > 1 << 16 {
        fputs(output, stdout)
        output.removeAll(keepingCapacity: true)
    }
}
fputs(output, stdout)
