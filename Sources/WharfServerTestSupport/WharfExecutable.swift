import Glibc
import WharfTestSupport
import WharfSystem

/// Where the built `wharf` is: `$WHARF`, else next to the running test bundle in `.build/`.
public func wharfExecutablePath() -> String {
    if let override = getenv("WHARF") { return String(cString: override) }
    return builtExecutablePath("wharf")
}

/// A product built next to the running test bundle (`.build/<configuration>/NAME`).
public func builtExecutablePath(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let executable = FilePath(bytes: buffer[..<max(count, 0)].map { UInt8(bitPattern: $0) }) ?? .root
    return executable.directory.appending(name).description
}
