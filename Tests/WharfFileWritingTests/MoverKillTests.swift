import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// A move killed (SIGKILL) at any of its steps leaves every file in its old place or its new
/// one, complete, never in neither and never half-copied under a real name; the orphan sweep
/// then removes every temporary it left, and no file with it. The move probe stops at its Nth
/// step and is killed there, for every N until it gets to the end; within one file system and
/// across (a tmpfs to the disk), replacing a file at the destination too.
struct MoverKillTests {
    /// The move probe (Tests/Tools/MoveProbe), built next to the test bundle.
    static var probe: String {
        FilePath(Probe.path)!.directory.appending("wharf-move-probe").description
    }

    /// What one round moves: relative paths of files and what each holds, under `from` before
    /// and under `to` after. `a.txt` is also at the destination already (to be replaced).
    static let files: [(String, [UInt8])] = [
        ("a.txt", Array("new a".utf8)),
        ("big.bin", patternBytes(6 << 20)),
        ("docs/one.txt", Array("one".utf8)),
        ("docs/deep/two.bin", patternBytes(1 << 20, seed: 2)),
        ("docs/deep/two-again.bin", patternBytes(1 << 20, seed: 2)),
    ]
    static let items = ["a.txt", "big.bin", "docs", "link"]

    struct Round {
        let folders: MoveFolders
        var from: FilePath { folders.from }
        var to: FilePath { folders.to }

        init(across: Bool) throws {
            folders = try MoveFolders(across: across, tmpfsSize: 64 << 20)
            for (name, bytes) in MoverKillTests.files {
                try Syscalls.makeDirectories(from.appending(name).directory, mode: 0o755)
                writeFile(from.appending(name), bytes)
            }
            removeFile(from.appending("docs/deep/two-again.bin"))
            hardLink(from.appending("docs/deep/two.bin"), at: from.appending("docs/deep/two-again.bin"))
            makeSymlink("docs/one.txt", at: from.appending("link"))
            writeFile(to.appending("a.txt"), "old a")
        }

        /// Every file complete in its old place or its new one (or both: a copy in place whose
        /// original was not yet set aside); the link likewise; what is at `to/a.txt` is the old
        /// file or the new one, whole.
        func nothingLost(_ context: String) {
            for (name, bytes) in MoverKillTests.files {
                let old = readFile(from.appending(name))
                let new = readFile(to.appending(name))
                #expect(old != nil || new != nil, "\(name) is gone \(context)")
                if let old { #expect(old == bytes, "\(name) in its old place is not whole \(context)") }
                if let new, name != "a.txt" || new != Array("old a".utf8) {
                    #expect(new == bytes, "\(name) in its new place is not whole \(context)")
                }
            }
            #expect(symlinkTarget(from.appending("link")) == "docs/one.txt" || symlinkTarget(to.appending("link")) == "docs/one.txt",
                    "the link is gone \(context)")
            #expect(readText(to.appending("a.txt")) != nil, "the destination's a.txt is gone \(context)")
        }
    }

    @Test(arguments: [false, true])
    func killedAtEveryStepNothingIsLostAndTheSweepCleansUp(across: Bool) throws {
        var step = 1
        var holds: [String] = []
        while step < 100 {
            let round = try Round(across: across)
            let child = try ChildProcess(
                path: Self.probe,
                arguments: ["--replace", "--hold-at", "\(step)", "--into", round.to.description] + Self.items.map { round.from.appending($0).description },
                mergeErrors: true)
            guard let line = child.waitForLine(startingWith: "holding ") else {
                // The move got to its end before step `step`: everything is in its new place.
                #expect(child.wait() == 0)
                for (name, bytes) in Self.files { #expect(readFile(round.to.appending(name)) == bytes, "\(name) after the whole move") }
                #expect(round.folders.scratch.names(in: round.from).isEmpty)
                #expect(round.folders.temporaries().isEmpty)
                break
            }
            holds.append(line)
            child.kill(SIGKILL)
            #expect(child.wait() == 128 + SIGKILL)
            round.nothingLost("after a kill at \(line)")
            AtomicWriter.removeOrphans(in: round.from)
            AtomicWriter.removeOrphans(in: round.to)
            round.nothingLost("after the sweep that followed a kill at \(line)")
            #expect(round.folders.temporaries().isEmpty, "left after the sweep that followed a kill at \(line)")
            step += 1
        }
        // Every kind of step was reached (and killed at).
        let kinds = ["prepared", "placed", "synced", "committed"] + (across ? ["copying", "copied", "setAside"] : [])
        for kind in kinds { #expect(holds.contains { $0.contains(kind) }, "never stopped at \(kind): \(holds)") }
    }
}
