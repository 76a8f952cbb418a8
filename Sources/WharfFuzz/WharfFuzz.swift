import Glibc
import WharfJSON
import WharfJSONRPC
import WharfServer
import WharfSystem

/// The fuzz entry point: arbitrary bytes go through everything a client's bytes go through in
/// `wharf`, in process: framing (both framings, chosen by `--framing auto` from the bytes
/// themselves), JSON decoding, JSON-RPC validation, lifecycle, params decoding and the dispatch
/// of every method, then the replies' serialisation.
///
/// Beyond "does not crash", each input is checked against what the protocol promises:
/// - every byte Wharf writes is a well-formed frame in the client's framing, carrying JSON-RPC
///   2.0: responses with an id and exactly one of `result` or `error` (with an integer code and a
///   message), or messages from the server with a method;
/// - the session ends, with exit status 0 or 1;
/// - the frame decoder finds the same messages whether the bytes arrive at once or in pieces
///   (the split points come from the input too).
///
/// A violation traps, which libFuzzer reports as a crash and saves as a reproducer.
///
/// Inputs can reach the exporter and `writeFile`; bench/fuzz/fuzz.sh therefore runs the fuzzer
/// in a Landlock sandbox (bench/fuzz/sandbox.c) that lets it write only beneath its own folder.
enum WharfFuzz {
    /// Runs one input. Called by libFuzzer, or by `main` below to replay saved inputs.
    @discardableResult
    static func run(_ bytes: UnsafeRawBufferPointer) -> (output: [UInt8], exitCode: Int32?) {
        checkSplitDecoding(bytes)
        let (output, exitCode) = serve(bytes)
        guard exitCode == 0 || exitCode == 1 else {
            fail("the session ended with exit status \(exitCode.map(String.init) ?? "none")", input: bytes)
        }
        // With no non-blank byte nothing is read as a message, so nothing may be written.
        let framing = Framing.chosen(for: bytes) ?? .lsp
        if let problem = OutputChecker.problem(in: output, framing: framing) {
            fail(problem, input: bytes, output: output)
        }
        return (output, exitCode)
    }

    // MARK: A whole session

    /// A new server for every input, so that inputs are deterministic (dialog ids start at
    /// `dlg-1` each time, which the seeds use). State lives in memory, so no input touches
    /// anyone's grants.
    static func makeServer() -> Server {
        var options = ServerOptions()
        options.stateDirectory = ":memory:"
        do {
            return try Server(options: options, logger: .silent)
        } catch {
            fatalError("cannot start the server: \(error)")
        }
    }

    /// Serves one session whose input is exactly `bytes` followed by end of input, through
    /// the same host entry point as `wharf` (`Server.serve`), and returns everything written
    /// to the client and the exit status.
    ///
    /// Input and output are memory files rather than pipes: reads end at the end of the input
    /// and writes never block, so the session runs to its end on this thread, with no reader
    /// thread and no deadlock however much the server writes. The connection gets its own
    /// descriptors for them (it closes those when the session ends); the output is read back
    /// through ours.
    static func serve(_ bytes: UnsafeRawBufferPointer) -> (output: [UInt8], exitCode: Int32?) {
        let input = memoryFile("wharf-fuzz-input")
        let output = memoryFile("wharf-fuzz-output")
        do {
            // At offset 0 without moving the file offset, which the server's reads start from.
            try input.write(Array(bytes), at: 0)
        } catch {
            fatalError("writing the input: \(error)")
        }
        let server = makeServer()
        let options = server.options
        let connection = Connection(
            input: try! input.duplicate(),
            output: try! output.duplicate(),
            options: options.connectionOptions,
            logger: .silent
        )
        let exitCode = server.serve(connection)
        server.close()
        return (readAll(output), exitCode)
    }

    // MARK: Split frames

    /// Decodes the input at once and in pieces, and traps if the messages differ.
    ///
    /// The last byte of the input picks the piece sizes (1 to 64 bytes, cycling through a
    /// pattern), so the fuzzer explores split points along with contents. Comparisons are
    /// limited to streams where nothing was skipped: how much garbage is skipped at a time
    /// legitimately depends on how much has arrived.
    static func checkSplitDecoding(_ bytes: UnsafeRawBufferPointer) {
        guard let seed = bytes.last else { return }
        let limit = 1 << 16
        var whole = FrameDecoder(mode: .auto, maxMessageBytes: limit)
        whole.append(bytes)
        let once = drain(&whole)

        var pieces = FrameDecoder(mode: .auto, maxMessageBytes: limit)
        var split: [FrameEvent] = []
        var offset = 0
        var step = UInt(seed)
        while offset < bytes.count {
            let size = min(1 + Int(step % 64), bytes.count - offset)
            pieces.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)]))
            split += drain(&pieces)
            offset += size
            step = step &* 31 &+ 7
        }
        let skipped = (once + split).contains { if case .skipped = $0 { return true } else { return false } }
        guard !skipped else { return }
        if once != split || whole.framing != pieces.framing {
            fail("decoding at once found \(once.count) events, in pieces \(split.count): \(describe(once)) vs \(describe(split))", input: bytes)
        }
    }

    private static func drain(_ decoder: inout FrameDecoder) -> [FrameEvent] {
        var events: [FrameEvent] = []
        while let event = decoder.next() { events.append(event) }
        return events
    }

    private static func describe(_ events: [FrameEvent]) -> String {
        events.prefix(4).map { event in
            switch event {
            case .message(let body): return "message(\(body.count) bytes)"
            case .oversized(let length): return "oversized(\(length))"
            case .skipped(let reason): return "skipped(\(reason))"
            }
        }.joined(separator: ", ")
    }

    // MARK: Helpers

    /// An anonymous file in /dev/shm (memory), unlinked at once. (Swift does not import
    /// `memfd_create`.)
    private static func memoryFile(_ name: String) -> FileDescriptor {
        let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(directory)/\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { fatalError("mkstemp: \(SystemError.current("mkstemp"))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return FileDescriptor(taking: descriptor)
    }

    /// The whole file, read at offset 0 whatever the descriptor's offset.
    private static func readAll(_ file: FileDescriptor) -> [UInt8] {
        guard let size = try? file.status().size else { return [] }
        return (try? file.read(at: 0, length: Int(size))) ?? []
    }

    static func fail(_ problem: String, input: UnsafeRawBufferPointer, output: [UInt8]? = nil) -> Never {
        var report = "wharf-fuzz: \(problem)\ninput (\(input.count) bytes): \(preview(Array(input)))\n"
        if let output { report += "output (\(output.count) bytes): \(preview(output))\n" }
        report.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        abort()
    }

    private static func preview(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(600).map { byte -> String in
            (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\") ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
        }.joined()
        return bytes.count > 600 ? shown + "…" : shown
    }
}

#if WHARF_FUZZING
/// libFuzzer calls this for every input it tries.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    WharfFuzz.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// Without libFuzzer (a plain `swift build`): replays the files and directories given on the
/// command line through the same entry point, so a saved crash can be rerun in a debugger.
@main
struct ReplayInputs {
    static func main() {
        var paths = Array(CommandLine.arguments.dropFirst())
        let verbose = paths.first == "-v"
        if verbose { paths.removeFirst() }
        // `-n N` replays each input N times: a slow leak shows in the resident memory.
        var times = 1
        if paths.first == "-n", paths.count > 1, let count = Int(paths[1]), count > 0 {
            times = count
            paths.removeFirst(2)
        }
        if paths.isEmpty {
            print("usage: WharfFuzz [-v] [-n TIMES] FILE|DIRECTORY...  (replays inputs; `make fuzz` builds the libFuzzer version)")
            exit(2)
        }
        var count = 0
        while let path = paths.first {
            paths.removeFirst()
            if let directory = FilePath(path), (try? FileStatus.of(directory))?.kind == .directory {
                for name in (try? DirectoryEntries.names(in: directory)) ?? [] where name.first != UInt8(ascii: ".") {
                    paths.append(directory.appending(name).description)
                }
                continue
            }
            guard let bytes = readFile(path) else {
                print("cannot read \(path)")
                exit(1)
            }
            var (output, exitCode) = bytes.withUnsafeBytes { WharfFuzz.run($0) }
            for _ in 1..<times { (output, exitCode) = bytes.withUnsafeBytes { WharfFuzz.run($0) } }
            if verbose {
                print("\(path): \(bytes.count) bytes in, \(output.count) bytes out, exit status \(exitCode.map(String.init) ?? "none")")
            }
            count += 1
        }
        print("replayed \(count) inputs without a finding")
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let path = FilePath(path) else { return nil }
        return try? FileDescriptor.open(path, O_RDONLY).readToEnd()
    }
}
#endif
