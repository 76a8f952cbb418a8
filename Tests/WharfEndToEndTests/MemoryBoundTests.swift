import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Memory stays bounded however a client floods the server (issue 12, class 3), over the
/// binary: every answer counts against the client's output budget, so a client that pipelines
/// many large `readFile`s and reads none of them stops being read from, and the server holds
/// about one answer, not all of them. (It once held 24 answers of 16 MiB: 645 MB.)
///
/// The test compares the server with itself rather than with a number of megabytes (which
/// the sanitizers' builds would multiply): the memory it takes on while a client asks for 12
/// answers and reads none must be about what it takes on for 2.
@Suite struct MemoryBoundsOverTheWire {
    let scratch = ScratchDirectory()
    static let fileSize = 8 << 20

    init() {
        scratch.write("large.bin", [UInt8](repeating: 0x5A, count: Self.fileSize))
        scratch.write("script.json", "[{\"choose\": [\"large.bin\"]}]")
    }

    @Test func pipelinedReadFilesFromAClientThatReadsNothingAreHeldOneAtATime() throws {
        let few = try flood(requests: 2)
        let many = try flood(requests: 12)
        #expect(few.answers == 2 && many.answers == 12)
        // Held unbounded, 12 answers of 11 MiB of base64 would be over 130 MiB more than 2.
        #expect(Double(many.grownKiB) < 2 * Double(few.grownKiB) + 8_192,
                "peak growth while not reading: \(few.grownKiB) KiB for 2 requests, \(many.grownKiB) KiB for 12")
    }

    /// Spawns a server, has `large.bin` granted, pipelines `requests` readFiles of all of it,
    /// reads nothing until the server has gone idle, then reads every answer. Answers how much
    /// the server's peak memory grew while nobody read (KiB), and how many answers came.
    func flood(requests: Int) throws -> (grownKiB: Int, answers: Int) {
        let server = try ChildProcess(path: wharfExecutablePath(), arguments: [
            "--framing", "ndjson", "--state-dir", ":memory:", "--presenter", "script:" + scratch.file("script.json"),
        ])
        var lines = LineReader(descriptor: server.stdout)
        func send(_ id: Int, _ method: String, _ params: JSON) throws {
            try server.send(JSON.object(["jsonrpc": "2.0", "id": .int(Int64(id)), "method": .string(method), "params": params]).serialized() + [0x0A])
        }
        func answer(_ id: Int) throws -> JSON {
            while let line = lines.next() {
                let message = try JSON.parse(line)
                if message["id"] == .int(Int64(id)) { return try #require(message["result"], "\(message)") }
            }
            throw LineReader.Ended()
        }
        try send(1, "initialize", ["clientInfo": ["name": "flood"]])
        _ = try answer(1)
        try send(2, "presentImporter", ["allowedContentTypes": ["public.data"]])
        _ = try answer(2)
        var url: JSON?
        while url == nil, let line = lines.next() {
            let message = try JSON.parse(line)
            if message["method"] == "dialog/completed" { url = message["params"]?["urls"]?.arrayValue?.first }
        }
        try send(3, "resolveAccess", ["url": try #require(url)])
        let lease = try #require(try answer(3)["accessId"])
        let before = statusKilobytes(server.pid, "VmHWM")

        for id in 0..<requests {
            try send(100 + id, "readFile", ["accessId": lease, "offset": 0, "length": .int(Int64(Self.fileSize))])
        }
        waitUntilIdle(server.pid)
        let grown = statusKilobytes(server.pid, "VmHWM") - before

        let expectedLength = (Self.fileSize + 2) / 3 * 4
        var answers = 0
        while answers < requests, let line = lines.next() {
            // The answers are too large to parse here at leisure; their size says they are whole.
            if line.count > expectedLength && line.count < expectedLength + 200 { answers += 1 }
        }
        try send(4, "shutdown", .null)
        _ = try answer(4)
        server.closeStdin()
        #expect(server.waitForExit(seconds: 10) == 0)
        return (grown, answers)
    }
}

/// A field of `/proc/PID/status` in KiB (`VmHWM`, the peak resident memory; `VmRSS`).
func statusKilobytes(_ pid: pid_t, _ field: String) -> Int {
    guard let text = readText(FilePath("/proc/\(pid)/status")!) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).filter(\.isNumber)) ?? 0
    }
    return 0
}

/// Newline-delimited messages read from a descriptor, each without its newline.
///
/// The answers this suite reads are 11 MiB lines, 130 MiB a run, and the tests are built
/// without optimisation (and instrumented under the sanitizers): the newline is found with
/// `memchr` and reads land in one reused chunk, since a byte-by-byte Swift scan of that much
/// took most of the suite's two minutes (ten under ThreadSanitizer).
struct LineReader {
    struct Ended: Error {}
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 20)

    init(descriptor: Int32) { self.descriptor = descriptor }

    mutating func next() -> [UInt8]? {
        var searched = start
        while true {
            if let newline = newline(from: searched) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start > 1 << 20 {
                    buffer.removeSubrange(..<start)
                    start = 0
                }
                return line
            }
            searched = buffer.count
            // A guard against a hung server (it once deadlocked here), not a time being tested.
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 60_000)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return nil }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            chunk.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// The index of the first newline at or after `index`, if one has arrived.
    private func newline(from index: Int) -> Int? {
        buffer.withUnsafeBytes { bytes in
            guard index < bytes.count, let found = memchr(bytes.baseAddress! + index, 0x0A, bytes.count - index) else {
                return nil
            }
            return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
        }
    }
}
