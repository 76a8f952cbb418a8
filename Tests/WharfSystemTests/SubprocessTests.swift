import Glibc
import Testing
import WharfSystem
import WharfTestSupport

/// Starting programs (WharfSystem's Subprocess): what a child gets, and what it does not.
@Suite struct Subprocesses {
    /// Everything `child` writes to standard output, and how it ended.
    func outcome(_ child: Subprocess) -> (output: [UInt8], ending: Subprocess.Ending) {
        let (output, _) = child.readUntilExit()
        return (output, child.wait())
    }

    @Test func argumentsAndTheEnvironmentReachTheChildAsTheExactBytes() throws {
        let arguments: [[UInt8]] = [Array("caf".utf8) + [0xFF, 0xE9], Array("two words".utf8), [0x0A], []]
        let child = try Subprocess.spawn(
            Array("/bin/sh".utf8),
            arguments: ["-c", #"for a in "$@"; do printf '%s\0' "$a"; done"#, "sh"].map { Array($0.utf8) } + arguments,
            standardOutput: .pipe)
        let (printed, ending) = outcome(child)
        #expect(ending == .exited(0))
        #expect(printed.split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init) == arguments)

        let environment: [[UInt8]] = [Array("WHARF_BYTES=".utf8) + [0xFF, 0x80], Array("ONLY=this".utf8)]
        let env = try Subprocess.spawn("/usr/bin/env", arguments: [], environment: environment, standardOutput: .pipe)
        #expect(outcome(env).output == environment.flatMap { $0 + [0x0A] }, "exactly the environment given, byte for byte")
    }

    /// A file manager starts in the dialog's folder, whatever bytes name it.
    @Test func aChildStartsInTheFolderItIsGiven() throws {
        let scratch = ScratchDirectory()
        let folder = scratch.path(bytes: Array("caf".utf8) + [0xE9])
        try Syscalls.makeDirectories(folder, mode: 0o700)
        let child = try Subprocess.spawn(Array("/bin/pwd".utf8), arguments: [[0x2D, 0x50]], standardOutput: .pipe, workingDirectory: folder)
        let resolved = try folder.resolved()
        #expect(outcome(child) == (resolved.bytes + [0x0A], .exited(0)))
        #expect(throws: SystemError.self, "a folder that cannot be entered fails the spawn") {
            try Subprocess.spawn(Array("/bin/pwd".utf8), arguments: [], workingDirectory: scratch.path("missing")).wait()
        }
    }

    @Test func anArgumentWithNULIsRefusedBeforeAnythingStarts() {
        #expect(throws: SystemError(code: EINVAL, operation: "posix_spawn", path: "/bin/true")) {
            try Subprocess.spawn(Array("/bin/true".utf8), arguments: [[0x61, 0, 0x62]])
        }
    }

    @Test func exitCodesAreTheProgramsOrOneHundredTwentyEightPlusTheSignal() throws {
        #expect(try Subprocess.spawn("/bin/sh", arguments: ["-c", "exit 7"]).wait() == .exited(7))
        let killed = try Subprocess.spawn("/bin/sh", arguments: ["-c", "kill -9 $$"]).wait()
        #expect(killed == .killed(signal: SIGKILL) && killed.code == 128 + SIGKILL)
        #expect(throws: SystemError.self) { try Subprocess.spawn("/nonexistent/program", arguments: []) }
        #expect(try Subprocess.spawn("true", arguments: [], searchPath: true).wait() == .exited(0))
    }

    @Test func theEnvironmentIsOursWithChanges() throws {
        let child = try Subprocess.spawn(
            "/usr/bin/env", arguments: [],
            environment: ProcessControl.environmentEntries(adding: ["WHARF_SPAWN_TEST": "added", "HOME": "/elsewhere"], removing: ["PATH"]),
            standardOutput: .pipe)
        let lines = String(decoding: outcome(child).output, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains("WHARF_SPAWN_TEST=added") && lines.contains("HOME=/elsewhere"))
        #expect(!lines.contains { $0.hasPrefix("PATH=") })
        #expect(lines.filter { $0.hasPrefix("HOME=") }.count == 1)
        if let user = getenv("USER").map({ String(cString: $0) }) { #expect(lines.contains("USER=\(user)"), "the rest is ours") }
    }

    @Test func aChildInheritsOnlyItsStandardStreams() throws {
        // A pipe made the old way, without close-on-exec: what a library (or a half-made pipe
        // on another thread) can leave open at any moment.
        var leaked: [Int32] = [-1, -1]
        #expect(pipe(&leaked) == 0)
        defer { close(leaked[0]); close(leaked[1]) }
        // The child says when it has started, then waits on its standard input. Only then is
        // one look taken: a program still starting up opens and closes files of its own (GNU
        // `sleep` reads the locale's files one at a time, so a fourth descriptor comes and goes
        // between two looks, which is how an earlier version of this test that looked until
        // the list was clean, then again, failed). The shell opens nothing once it is reading,
        // and an inherited descriptor is there from the start. Each extra descriptor is named
        // by what it is (a leaked pipe shows as `pipe:[…]`).
        let child = try Subprocess.spawn("/bin/sh", arguments: ["-c", "echo started; read line"],
                                         standardInput: .pipe, standardOutput: .pipe)
        defer { child.signal(SIGKILL); child.wait() }
        try #require(readLine(child.standardOutput!) == "started")
        let descriptors = directoryNames(FilePath("/proc/\(child.pid)/fd")!).map { name in
            let number = String(decoding: name, as: UTF8.self)
            return Int(number)! < 3 ? number : number + " → " + (symlinkTarget(FilePath("/proc/\(child.pid)/fd/\(number)")!) ?? "?")
        }
        #expect(descriptors.sorted() == ["0", "1", "2"])
    }

    @Test func signalsStartUnblockedAndAtTheirDefaultsWhateverTheParentDid() throws {
        // The `wharf` host blocks SIGTERM and SIGINT in every thread (to take them with
        // sigwait), and ignores SIGPIPE: a thread of that kind starts the child here.
        ProcessControl.ignoreBrokenPipes()
        let started = OneShot<Subprocess?>()
        startThread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            sigaddset(&blocked, SIGINT)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            started.set(try? Subprocess.spawn("/bin/sleep", arguments: ["30"]))
        }
        let child = try #require(started.wait())
        defer { child.signal(SIGKILL); child.wait() }
        let status = String(decoding: readFile(FilePath("/proc/\(child.pid)/status")!) ?? [], as: UTF8.self)
        let masks = Dictionary(status.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters()) : nil
        }, uniquingKeysWith: { first, _ in first })
        // Signals 1 to 31, the standard ones (glibc keeps its two internal signals, 32 and 33,
        // to itself).
        let standard: UInt64 = 0x7FFF_FFFF
        #expect(masks["SigBlk"].flatMap { UInt64($0, radix: 16) }.map { $0 & standard } == 0, "nothing blocked")
        #expect(masks["SigIgn"].flatMap { UInt64($0, radix: 16) }.map { $0 & standard } == 0, "nothing ignored (SIGPIPE included)")
        child.signal(SIGTERM)
        #expect(child.wait(until: Deadline(secondsFromNow: 10)) == .killed(signal: SIGTERM))
    }

    @Test func aChildInANewProcessGroupIsSignalledWithEverythingItStarted() throws {
        let child = try Subprocess.spawn("/bin/sh", arguments: ["-c", "sleep 300 & echo $!; wait"], newProcessGroup: true,
                                         standardOutput: .pipe)
        #expect(child.leadsProcessGroup && getpgid(child.pid) == child.pid)
        let grandchild = try #require(readLine(child.standardOutput!).flatMap { Int32($0) })
        #expect(getpgid(grandchild) == child.pid)
        child.signal(SIGKILL)
        #expect(child.wait(until: Deadline(secondsFromNow: 10)) == .killed(signal: SIGKILL))
        let deadline = Deadline(secondsFromNow: 10)
        while ProcessIdentity(pid: grandchild, startTime: 0).isRunning && !deadline.hasPassed { usleep(5_000) }
        #expect(!ProcessIdentity(pid: grandchild, startTime: 0).isRunning, "the grandchild went with its group")

        // Without a group of its own, a child shares ours.
        let plain = try Subprocess.spawn("/bin/true", arguments: [])
        #expect(!plain.leadsProcessGroup)
        plain.wait()
    }

    @Test func nothingIsSignalledOnceTheChildIsReaped() throws {
        let child = try Subprocess.spawn("/bin/true", arguments: [], newProcessGroup: true)
        #expect(child.wait() == .exited(0))
        #expect(child.hasExited)
        // Its pid may be someone else's by now: the signal must go nowhere (SIGSTOP would
        // freeze whoever got it, so this would hang the run if it did not).
        child.signal(SIGSTOP)
        #expect(child.wait() == .exited(0), "the same ending, again")
    }

    @Test func itsExitCanBeWatchedWithoutReapingIt() throws {
        let child = try Subprocess.spawn("/bin/sh", arguments: ["-c", "read line"], standardInput: .pipe)
        #expect(!child.hasExited)
        #expect(child.wait(until: Deadline(secondsFromNow: 0.05)) == nil)
        child.standardInput!.close()
        let exitWatch = try #require(child.exitWatch)
        #expect(try Poller.wait([Poller.Watch(exitWatch)], timeoutMilliseconds: 10_000) == [.readable])
        #expect(child.hasExited)
        // Still a zombie, so still ours.
        #expect(ProcessIdentity.exists(child.pid))
        #expect(child.wait() == .exited(1))
    }

    @Test func readingUntilExitIsNotHeldUpByAGrandchildKeepingThePipesOpen() throws {
        let child = try Subprocess.spawn("/bin/sh", arguments: ["-c", "echo out; echo err >&2; sleep 300 &"],
                                         newProcessGroup: true, standardOutput: .pipe, standardError: .pipe)
        let started = monotonicNanoseconds()
        let (output, errors) = child.readUntilExit()
        #expect(monotonicNanoseconds() - started < 10_000_000_000)
        #expect(output == Array("out\n".utf8) && errors == Array("err\n".utf8))
        child.signal(SIGKILL)
        #expect(child.wait() == .exited(0))
    }

    @Test func standardErrorCanFollowStandardOutputAndKeepOnlyItsEnd() throws {
        let merged = try Subprocess.spawn("/bin/sh", arguments: ["-c", "echo a; echo b >&2"],
                                          standardOutput: .pipe, standardError: .standardOutput)
        #expect(merged.standardError == nil)
        #expect(outcome(merged).output == Array("a\nb\n".utf8))
        let chatty = try Subprocess.spawn("/bin/sh", arguments: ["-c", "seq 1 5000 >&2"], standardError: .pipe)
        let (_, errors) = chatty.readUntilExit(errorLimit: 10)
        #expect(errors == Array("4999\n5000\n".utf8))
        chatty.wait()
    }

    @Test func aFileCanStandInForAStream() throws {
        let scratch = ScratchDirectory()
        let file = try FileDescriptor.open(scratch.path("out.txt"), O_WRONLY | O_CREAT | O_TRUNC)
        let child = try Subprocess.spawn("/bin/echo", arguments: ["to a file"], standardInput: .null, standardOutput: .file(file))
        #expect(child.wait() == .exited(0))
        #expect(scratch.text("out.txt") == "to a file\n")
    }

    @Test func executableFilesAreRegularFilesThisProcessMayRun() {
        let scratch = ScratchDirectory()
        let script = scratch.write("script", "#!/bin/sh\n", mode: 0o755)
        let text = scratch.write("text", "x", mode: 0o644)
        #expect(("/bin/sh" as FilePath).isExecutableFile)
        #expect(script.isExecutableFile)
        #expect(!text.isExecutableFile)
        #expect(!scratch.path.isExecutableFile, "a directory is searchable, not runnable")
        #expect(!scratch.path("missing").isExecutableFile)
    }

    @Test func errnoValuesHaveTheCLibrarysWords() {
        #expect(SystemError.reason(for: ENOENT) == "No such file or directory")
        #expect(SystemError(code: EPERM, operation: "kill").description == "kill: Operation not permitted")
    }

    /// One line from `descriptor` (a test's pipe), without its newline.
    func readLine(_ descriptor: FileDescriptor) -> String? {
        var line: [UInt8] = []
        var byte: [UInt8] = [0]
        while (byte.withUnsafeMutableBytes { (try? descriptor.read(into: $0)) ?? 0 }) == 1 {
            if byte[0] == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte[0])
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
