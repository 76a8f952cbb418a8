import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// Several Wharf processes (each editor spawns its own) share one store.
@Suite struct MultiProcessTests {
    let state = WorkDirectory()
    let files = WorkDirectory()

    /// `wharf-access-stress`, built next to the test bundle in `.build/<config>/`.
    static func stressTool() throws -> String {
        let bundle = try FilePath("/proc/self/exe").resolved()
        var directory = bundle.directory
        // The bundle may be a directory (`….xctest/…`) on some set-ups: climb to the build folder.
        for _ in 0..<4 {
            let candidate = directory.appending("wharf-access-stress")
            if candidate.isExecutableFile { return candidate.description }
            directory = directory.directory
        }
        throw AccessError.invalidArgument("wharf-access-stress was not built next to \(bundle); run `swift build --build-tests`")
    }

    @Test func eightProcessesDoingAThousandOperationsEachNeverSeeTheDatabaseLocked() throws {
        let tool = try Self.stressTool()
        for index in 0..<6 { writeFile(files.file("file-\(index).txt"), String(repeating: "x", count: 100 + index)) }

        // Every worker opens the store, then waits for the go file, so their operations overlap.
        let go = state.file("go")
        let workers = try (0..<8).map { worker in
            try ChildProcess(path: tool, arguments: [state.path.description, files.path.description, "1000", String(worker), go.description],
                             mergeErrors: true)
        }
        writeFile(go, "")
        var reports: [String] = []
        for worker in workers {
            let (status, bytes, _) = worker.finish()
            let output = String(decoding: bytes, as: UTF8.self)
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
