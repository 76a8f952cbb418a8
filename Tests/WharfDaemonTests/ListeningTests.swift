import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// `wharf --listen`: where the socket goes, who else may already be there, and how each
/// connection is a session of its own.
@Suite struct Listening {
    @Test func theDefaultSocketIsInADirectoryOnlyTheUserCanEnter() throws {
        let scratch = ScratchDirectory("wharf-run")
        let runtime = scratch.makeDirectory("run")
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--listen", "--presenter", "kdialog"],
                                     environment: ["XDG_RUNTIME_DIR": runtime.description, "XDG_STATE_HOME": scratch.file("state")])
        defer { child.kill(SIGTERM) }
        let socket = runtime.appending("wharf").appending("wharf.sock")
        // Waits until it listens: the socket exists from `bind`, and takes its mode before
        // `listen`, so only then are both the mode and a connection sure.
        let deadline = Deadline(secondsFromNow: 20)
        while !deadline.hasPassed {
            if let probe = try? UnixSocket.connect(to: socket) {
                probe.close()
                break
            }
            ProcessControl.sleep(milliseconds: 5)
        }
        #expect(try FileStatus.ofLink(socket.directory).mode & 0o777 == 0o700)
        #expect(try FileStatus.ofLink(socket).mode & 0o777 == 0o600)
        let client = try WireClient.connect(to: socket)
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        child.kill(SIGTERM)
        #expect(child.waitForExit(seconds: 20) == 0)
        #expect((try? FileStatus.ofLink(socket)) == nil, "the daemon removes its socket when it exits")
    }

    /// An app that opens connection after connection, saying nothing, takes at most
    /// `--max-clients-per-app` places: its next one is told why and closed, another app's still
    /// gets in, and a place it gives back is its again.
    @Test func oneAppTakesAtMostItsShareOfConnections() throws {
        let daemon = try DaemonProcess(["--presenter", "kdialog", "--max-clients-per-app=2"])
        // Two connections the daemon keeps. (Its start-up probe, a connection of this app
        // closed at once, may be counted for a moment longer: one refused meanwhile is retried.)
        var silent: [FileDescriptor] = []
        let settled = Deadline(secondsFromNow: 20)
        while silent.count < 2 && !settled.hasPassed {
            let connection = try UnixSocket.connect(to: daemon.socketPath)
            if bytesUntilClosed(connection, within: 1) == nil { silent.append(connection) }
        }
        try #require(silent.count == 2)
        let refused = try UnixSocket.connect(to: daemon.socketPath)
        let words = try #require(bytesUntilClosed(refused, within: 10), "the app's third connection was not closed")
        try expectRefusal(words, limit: 2, option: "--max-clients-per-app")
        #expect(daemon.log().contains("--max-clients-per-app"))

        // Another app (the program python3 runs) is served meanwhile.
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\\n')
            print(s.recv(4096).decode())
            """
        let (status, output) = run("/usr/bin/python3", ["-c", script, daemon.socketPath.description])
        #expect(status == 0 && output.contains("\"result\""), "\(output)")

        silent[0].close()
        #expect(aClientIsServedAgain(by: daemon), "the place given back was not the app's again")
        withExtendedLifetime(silent) {}
    }

    /// A connection past `--max-clients` is answered with one JSON-RPC error naming the limit
    /// and the option, then closed; once a place is free, a client is served again.
    @Test func aConnectionPastMaxClientsIsToldWhyAndClosed() throws {
        let daemon = try DaemonProcess(["--presenter", "kdialog", "--max-clients=1"])
        // One silent connection takes the one place. (The daemon's start-up probe may hold it
        // a moment longer: a connection refused meanwhile is tried again.)
        var holder: FileDescriptor?
        let settled = Deadline(secondsFromNow: 20)
        while holder == nil && !settled.hasPassed {
            let connection = try UnixSocket.connect(to: daemon.socketPath)
            if bytesUntilClosed(connection, within: 1) == nil { holder = connection }
        }
        let held = try #require(holder)
        let refused = try UnixSocket.connect(to: daemon.socketPath)
        let words = try #require(bytesUntilClosed(refused, within: 10), "a connection past --max-clients was kept")
        try expectRefusal(words, limit: 1, option: "--max-clients")
        #expect(daemon.log().contains("--max-clients"))

        held.close()
        #expect(aClientIsServedAgain(by: daemon), "the place given back was not free again")
    }

    /// A new client's ping is answered within 10 s: the daemon counts a closed connection out
    /// when its thread sees the end of it, so the first tries may still be refused.
    private func aClientIsServedAgain(by daemon: DaemonProcess) -> Bool {
        eventually(seconds: 10) { (try? daemon.client())?.call("ping", [:]) == [:] }
    }

    /// What a refused connection hears: exactly one NDJSON line, a JSON-RPC error with a null id,
    /// `tooManyClients`, the limit and the option in `data` and in the message.
    private func expectRefusal(_ words: [UInt8], limit: Int64, option: String) throws {
        #expect(words.last == UInt8(ascii: "\n") && words.filter { $0 == UInt8(ascii: "\n") }.count == 1,
                "not one line: \(String(decoding: words, as: UTF8.self))")
        let answer = try JSON.parse(words)
        #expect(answer["jsonrpc"] == "2.0")
        #expect(answer["id"] == JSON.null)
        #expect(answer["result"] == nil)
        #expect(answer["error"]?["code"] == -32050)
        #expect(answer["error"]?["data"]?["limit"]?.intValue == limit)
        #expect(answer["error"]?["data"]?["option"]?.stringValue == option)
        let message = answer["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains(option) && message.contains("\(limit)"), "\(message)")
    }

    /// A connection not answered `initialize` within `--initialize-timeout` is closed, whether
    /// it sent nothing or only other requests, so silent connections cannot keep every place;
    /// an initialized one stays. (The deadlines waited for are hang guards.)
    @Test func aConnectionNotInitializedInTimeIsClosed() throws {
        let daemon = try DaemonProcess(["--presenter", "kdialog", "--initialize-timeout=3"])
        let initialized = try daemon.client()
        let silent = try UnixSocket.connect(to: daemon.socketPath)
        let talking = try UnixSocket.connect(to: daemon.socketPath)
        try talking.write(all: Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".utf8))
        #expect(closedByPeer(silent, within: 30), "a silent connection was kept past --initialize-timeout")
        let heard = bytesUntilClosed(talking, within: 30)
        #expect(heard.map { String(decoding: $0, as: UTF8.self).contains("-32002") } == true,
                "a connection sending only ping was kept past --initialize-timeout, or not answered")
        #expect(initialized.call("ping", [:]) == [:], "an initialized connection was closed")
        #expect(daemon.log().contains("--initialize-timeout"))
    }

    /// A connection the system will not give a thread (the daemon's tasks limited by a pids
    /// cgroup, as systemd's `TasksMax=` limits a user's services) is refused and closed, and
    /// the daemon serves on: its clients keep their sessions, and once threads can be made again
    /// a new connection is served. (It stopped the whole daemon.)
    @Test(.enabled(if: TaskLimit.isAvailable, "needs a writable cgroup v1 pids controller (root)"))
    func aConnectionWithoutAThreadIsRefusedAndTheDaemonServesOn() throws {
        let daemon = try DaemonProcess(["--presenter", "kdialog"])
        let first = try daemon.client()
        #expect(first.call("ping", [:]) == [:])
        let limit = try #require(TaskLimit())
        defer { limit.remove() }
        try limit.add(daemon.child.pid)
        try limit.allow(1)
        let refused = try UnixSocket.connect(to: daemon.socketPath)
        #expect(closedByPeer(refused, within: 30), "a connection with no thread to serve it was kept")
        #expect(first.call("ping", [:]) == [:], "the daemon stopped serving its clients")
        #expect(daemon.log().contains("no thread could be started"))
        try limit.allow(nil)
        let later = try daemon.client("later")
        #expect(later.call("ping", [:]) == [:])
    }

    /// What the daemon writes to `socket` until it closes it, or nil if it is still open after `seconds`.
    private func bytesUntilClosed(_ socket: FileDescriptor, within seconds: Double) -> [UInt8]? {
        let deadline = Deadline(secondsFromNow: seconds)
        var bytes: [UInt8] = []
        while !deadline.hasPassed {
            var ready = pollfd(fd: socket.raw, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) == 1 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(socket.raw, &buffer, buffer.count)
            if count <= 0 { return bytes }
            bytes += buffer[..<count]
        }
        return nil
    }

    /// The daemon closes `socket` within `seconds` (its end of file arrives).
    private func closedByPeer(_ socket: FileDescriptor, within seconds: Double) -> Bool {
        var ready = pollfd(fd: socket.raw, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, Int32(seconds * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return read(socket.raw, &byte, 1) == 0
    }

    @Test func aStaleSocketIsReplacedALiveOneIsNot() throws {
        let scratch = ScratchDirectory("wharf-daemon")
        // A socket left by a process that died: bound, never listened on, never removed.
        let stale = try UnixSocket.listen(at: scratch.path("d.sock"))
        stale.close()
        #expect(throws: SystemError.self) { try UnixSocket.connect(to: scratch.path("d.sock")) }

        let daemon = try DaemonProcess(["--presenter", "kdialog"], scratch: scratch)
        let client = try daemon.client()
        #expect(client.call("ping", [:]) == [:])

        let second = try ChildProcess(path: wharfExecutablePath(), arguments: ["--listen=\(daemon.socketPath)"],
                                      environment: daemon.environment)
        #expect(second.waitForExitOrKill(seconds: 20) == 2)
        #expect(second.readErrors().contains("already serves"))
        #expect(client.call("ping", [:]) == [:], "the live daemon is untouched")

        // Something else than a socket at the path is never removed.
        scratch.write("file.sock", "not a socket")
        let third = try ChildProcess(path: wharfExecutablePath(), arguments: ["--listen=\(scratch.file("file.sock"))"],
                                     environment: daemon.environment)
        #expect(third.waitForExitOrKill(seconds: 20) == 2)
        #expect(third.readErrors().contains("is not a socket"))
        #expect(try String(decoding: readFile(scratch.path("file.sock")), as: UTF8.self) == "not a socket")
    }

    @Test func eachConnectionHasItsOwnFramingAndLifecycle() throws {
        let daemon = try scriptedDaemon()
        let lsp = try daemon.connect(framing: .lsp)
        let ndjson = try daemon.connect(framing: .ndjson)
        #expect(lsp.call("ping", [:]) == nil, "a request before initialize")
        lsp.initialize()
        ndjson.initialize()
        #expect(lsp.call("ping", [:]) == [:])
        #expect(ndjson.call("ping", [:]) == [:])

        // `exit` ends the connection, not the daemon.
        #expect(lsp.request("shutdown")?["result"] == .null)
        lsp.notify("exit")
        #expect(lsp.waitForEndOfOutput())
        #expect(ndjson.call("ping", [:]) == [:])
        let later = try daemon.connect(framing: .ndjson)
        later.initialize()
        #expect(later.call("ping", [:]) == [:])
        #expect(later.call("initialize", ["clientInfo": ["name": "again"]]) == nil, "a second initialize is refused")
    }

    /// systemd's socket units start the service with the listening socket as descriptor 3 and
    /// `LISTEN_FDS`/`LISTEN_PID` saying so; the test plays systemd, setting the variables itself
    /// (the shell's `$$` is the pid `exec` keeps).
    @Test func socketActivationServesThePassedSocketAndExitsWhenIdle() throws {
        let scratch = ScratchDirectory("wharf-activation")
        let path = scratch.path("activated.sock")
        let listener = try UnixSocket.listen(at: path)
        let child = try startActivated(listener, arguments: ["--presenter", "kdialog", "--idle-timeout", "1"], scratch: scratch)
        listener.close()  // the daemon holds its copy, as systemd would hold its own

        let client = try WireClient.connect(to: path)
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        #expect(child.waitForExit(seconds: 1.5) == nil, "a connection keeps it running")
        client.disconnect()
        #expect(child.waitForExit(seconds: 20) == 0, "it exits after a second without connections")
        #expect((try? FileStatus.ofLink(path)) != nil, "a passed socket is systemd's: the daemon leaves it")
    }

    @Test func socketActivationEndsOnSIGTERMWithStatusZero() throws {
        let scratch = ScratchDirectory("wharf-activation")
        let listener = try UnixSocket.listen(at: scratch.path("activated.sock"))
        let child = try startActivated(listener, arguments: ["--presenter", "kdialog"], scratch: scratch)
        listener.close()
        let client = try WireClient.connect(to: scratch.path("activated.sock"))
        client.initialize()
        child.kill(SIGTERM)
        #expect(client.waitForEndOfOutput())
        #expect(child.waitForExit(seconds: 20) == 0)
    }

    /// `wharf --listen ARGUMENTS` with `listener` as descriptor 3 and the activation variables
    /// naming its own pid.
    private func startActivated(_ listener: FileDescriptor, arguments: [String], scratch: ScratchDirectory) throws -> ChildProcess {
        let command = "export LISTEN_PID=$$ LISTEN_FDS=1; exec \"$0\" --listen \"$@\""
        return try ChildProcess(path: "/bin/sh", arguments: ["-c", command, wharfExecutablePath()] + arguments,
                                environment: ["XDG_STATE_HOME": scratch.file("state")], passing: [3: listener])
    }
}

func readFile(_ path: FilePath) throws -> [UInt8] {
    try FileDescriptor.open(path, O_RDONLY).readToEnd()
}

/// The unfinished messages of one app's connections share one budget, twice
/// `--max-message-bytes`: an app cannot have the daemon hold a message that never ends on every
/// one of its connections.
@Suite struct UnfinishedInput {
    @Test func oneAppsUnfinishedMessagesShareABudget() throws {
        let daemon = try DaemonProcess(["--presenter", "kdialog", "--max-message-bytes=1000000"])
        /// A `ping` of 900,000 bytes.
        func ping(_ id: Int) -> [UInt8] {
            let head = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"ping","params":{"padding":""#.utf8), tail = Array(#""}}"#.utf8)
            return head + [UInt8](repeating: UInt8(ascii: "a"), count: 900_000 - head.count - tail.count) + tail
        }
        let clients = try (1...3).map { _ in try daemon.connect() }
        for (index, client) in clients.enumerated() {
            client.sendRaw("Content-Length: 900000\r\n\r\n")
            client.sendRaw(Array(ping(index + 1).prefix(800_000)))
        }
        // 3 × 800,000 bytes unfinished, over 2,000,000: one connection throws its message away.
        let deadline = Deadline(secondsFromNow: 20)
        while !daemon.log().contains("discarded an unfinished message") && !deadline.hasPassed {
            ProcessControl.sleep(milliseconds: 10)
        }
        for (index, client) in clients.enumerated() { client.sendRaw(Array(ping(index + 1).dropFirst(800_000))) }
        let first = clients.map { $0.nextMessage() }
        let refused = first.indices.filter { first[$0]?["error"]?["code"] == -32600 && first[$0]?["id"] == .null }
        #expect(refused.count == 1, "\(first.map { $0?["error"]?["message"] ?? $0?["id"] ?? "nothing" })")
        #expect(first.indices.filter { first[$0]?["id"] == .int(Int64($0 + 1)) }.count == 2)
        let refusal = try #require(refused.first)
        #expect(first[refusal]?["error"]?["message"]?.stringValue?.contains("at most 2000000 bytes") == true)
        // The refused connection goes on: the rest of its message was thrown away, not read as a new one.
        #expect(clients[refusal].request("ping", [:])?["id"] != nil)
    }
}

/// A cgroup (v1) of the pids controller, of one test's own: a limit on how many tasks
/// (processes and threads) the processes put in it may have.
private struct TaskLimit {
    static let root = "/sys/fs/cgroup/pids"
    static var isAvailable: Bool { getuid() == 0 && access(root + "/cgroup.procs", W_OK) == 0 }

    let directory: String

    init?() {
        directory = "\(Self.root)/wharf-tests-\(getpid())-\(monotonicNanoseconds())"
        guard mkdir(directory, 0o755) == 0 else { return nil }
    }

    func add(_ pid: pid_t) throws { try write("\(pid)", to: "cgroup.procs") }

    /// At most `tasks` (nil: no limit); a limit below what the group has stops only new ones.
    func allow(_ tasks: Int?) throws { try write(tasks.map(String.init) ?? "max", to: "pids.max") }

    /// Moves what is in the group back to the root group, and removes the group.
    func remove() {
        let members = readText(FilePath("\(directory)/cgroup.procs")!) ?? ""
        for pid in members.split(separator: "\n") { try? write(String(pid), to: "../cgroup.procs") }
        rmdir(directory)
    }

    private func write(_ text: String, to file: String) throws {
        let descriptor = try FileDescriptor.open(FilePath("\(directory)/\(file)")!, O_WRONLY)
        try descriptor.write(all: Array(text.utf8))
    }
}
