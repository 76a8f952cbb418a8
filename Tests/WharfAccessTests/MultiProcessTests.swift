#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import WharfAccess
import WharfSystem

/// Several Wharf processes (each editor spawns its own) share one store.
@Suite struct MultiProcessTests {
    let state = TemporaryDirectory()
    let files = TemporaryDirectory()

    /// `wharf-access-stress`, built next to the test bundle in `.build/<config>/`.
    static func stressTool() throws -> String {
        let bundle = try FilePath.resolve("/proc/self/exe")
        var directory = FilePath.directory(of: bundle)
        // The bundle may be a directory (`….xctest/…`) on some set-ups: climb to the build folder.
        for _ in 0..<4 {
            let candidate = FilePath.join(directory, "wharf-access-stress")
            if access(candidate, X_OK) == 0 { return candidate }
            directory = FilePath.directory(of: directory)
        }
        throw AccessError.invalidArgument("wharf-access-stress was not built next to \(bundle); run `swift build --build-tests`")
    }

    @Test func eightProcessesDoingAThousandOperationsEachNeverSeeTheDatabaseLocked() throws {
        let tool = try Self.stressTool()
        for index in 0..<6 { writeFile(files.file("file-\(index).txt"), String(repeating: "x", count: 100 + index)) }

        // Every worker opens the store, then waits for the go file, so their operations overlap.
        let go = state.file("go")
        let workers = try (0..<8).map { worker in
            try SpawnedProcess(tool, [state.path, files.path, "1000", String(worker), go])
        }
        writeFile(go, "")
        var reports: [String] = []
        for worker in workers {
            let (status, output) = worker.wait()
            reports.append(output)
            #expect(status == 0, "worker failed: \(output)")
        }
        #expect(reports.count == 8)
        for report in reports {
            #expect(report.hasPrefix("done=1000 locked=0 other=0"), "\(report)")
        }

        // Every process closed its instance: the shared store holds bookmarks and remembered
        // folders, and no grants or leases of the workers.
        let (store, warnings) = try AccessStore.open(stateDirectory: state.path)
        #expect(warnings.isEmpty)
        let entries = try store.allEntries()
        #expect(entries.allSatisfy { $0.kind == .bookmark && $0.activeLeases == 0 })
        #expect(!entries.isEmpty)
        #expect(try store.rememberedDirectory(app: "stress-0", customizationId: "c1") == files.path)
    }
}

/// A child process with its standard output captured (`posix_spawn`), small enough for tests.
final class SpawnedProcess {
    let pid: pid_t
    private let output: Int32

    init(_ executable: String, _ arguments: [String]) throws {
        let made = try makePipe()
        let pipeEnds = [made.read, made.write]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let status = DescriptorInheritance.spawning { posix_spawn(&child, executable, &actions, nil, argv, environ) }
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            throw SystemError(code: status, operation: "posix_spawn", path: executable)
        }
        pid = child
        output = pipeEnds[0]
    }

    /// Reads everything the child printed, then reaps it: (exit status, output).
    func wait() -> (Int32, String) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            bytes += buffer[..<got]
        }
        close(output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exited, String(decoding: bytes, as: UTF8.self))
    }
}
