import Glibc

/// Writes `line` and a newline to `descriptor` (standard output unless told) at once, whole:
/// the tests' helper processes (Tests/Tools) are read by a parent while they go on or wait to
/// be killed, so nothing may wait in a buffer.
public func say(_ line: String, to descriptor: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}

/// Says what was wrong with a helper process's command line and exits 64 (`EX_USAGE`).
public func usage(_ problem: String) -> Never {
    say("usage: \(problem)")
    exit(64)
}
