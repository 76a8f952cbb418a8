// A stand-in for `wharf types identify` / `wharf types --stats`, built by run.sh from the
// release objects of WharfSystem and WharfContentTypes when $WHARF is not given, so the
// benchmark measures the module itself. Output: one line per file,
// `path<TAB>identifier<TAB>mimeType<TAB>source`, or `path<TAB>error<TAB>message`.
#if canImport(Glibc)
import Glibc
#endif
import WharfContentTypes

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "types" { arguments.removeFirst() }
if arguments.first == "--stats" {
    let statistics = ContentTypeRegistry.system.load()
    print("load_ms\t\(statistics.seconds * 1000)")
    print("mime_types\t\(statistics.mimeTypes)")
    print("glob_rules\t\(statistics.globRules)")
    print("magic_sections\t\(statistics.magicSections)")
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
