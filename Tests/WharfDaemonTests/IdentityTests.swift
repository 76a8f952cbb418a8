import Glibc
import Testing
import WharfJSON
import WharfServer
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// Who a client of the daemon is comes from its process, not from what it declares.
@Suite struct Identity {
    @Test func aSocketClientIsTheProgramItRuns() throws {
        let daemon = try scriptedDaemon()
        let client = try daemon.connect()
        let result = try #require(client.initialize(["clientInfo": ["name": "notes"]]))
        #expect(result["client"] == ["app": .string(ownApp), "name": "notes", "pid": .int(Int64(getpid()))])
    }

    /// A bridge's client is the program that started the bridge, verified by the daemon.
    @Test func aBridgedClientIsTheProgramThatStartedTheBridge() throws {
        let daemon = try scriptedDaemon()
        let direct = try daemon.bridge()
        #expect(direct.initialize(["clientInfo": ["name": "notes"]])?["client"]?["app"] == .string(ownApp))
        let viaTimeout = try daemon.bridge(launcher: ["/usr/bin/timeout", "60"])
        let result = try #require(viaTimeout.initialize(["clientInfo": ["name": "notes"]]))
        #expect(result["client"]?["app"] == "exe:/usr/bin/timeout")
        #expect(result["client"]?["pid"] == .int(Int64(try #require(viaTimeout.process).pid)))
    }

    /// Bookmarks belong to the verified app and the name together: another process of the same
    /// app shares them; another app claiming the same `clientInfo.name` gets none of them.
    @Test func aForgedNameGetsNothingOfTheOtherApp() throws {
        let scratch = ScratchDirectory("wharf-identity")
        scratch.write("secret.txt", "the other app's")
        let daemon = try scriptedDaemon([["choose": [.string(scratch.file("secret.txt"))]]])

        // App one (the program `timeout` runs as, here): picks a file, keeps a bookmark.
        let owner = try daemon.bridge(launcher: ["/usr/bin/timeout", "60"])
        owner.initialize(["clientInfo": ["name": "notes"]])
        let dialog = try #require(owner.presentImporter())
        let url = try #require(owner.ending(of: dialog)?["params"]?["urls"]?.arrayValue?.first)
        let bookmark = try #require(owner.call("createBookmark", ["url": url])?["bookmark"])

        // Another process of the same app, same name: shares the bookmark.
        let sibling = try daemon.bridge(launcher: ["/usr/bin/timeout", "60"])
        sibling.initialize(["clientInfo": ["name": "notes"]])
        let shared = try #require(sibling.call("listAccess", [:])?["entries"]?.arrayValue)
        #expect(shared.contains { $0["bookmark"] == bookmark })
        #expect(sibling.call("resolveAccess", ["bookmark": bookmark])?["accessId"] != nil)

        // Another app claiming the same name: nothing of the first app's.
        let forger = try daemon.connect()
        forger.initialize(["clientInfo": ["name": "notes"]])
        let listed = try #require(forger.call("listAccess", [:])?["entries"]?.arrayValue)
        #expect(!listed.contains { $0["bookmark"] != nil }, "another app's bookmark tokens were listed: \(listed)")
        #expect(forger.errorCode("resolveAccess", ["bookmark": bookmark]) == -32021)
        #expect(forger.errorCode("resolveAccess", ["url": url]) == -32020)
        #expect(forger.errorCode("revokeAccess", ["bookmark": bookmark]) == -32021)
        #expect(sibling.call("resolveAccess", ["bookmark": bookmark])?["accessId"] != nil, "the forger revoked nothing")
    }

    /// `SO_PEERCRED`: a peer of another user is refused as it connects, even when the socket's
    /// mode would let it in. Needs root, to run the peer as `nobody` with setpriv(1).
    @Test(.enabled(if: getuid() == 0, "needs root to run a peer as another user"))
    func aPeerOfAnotherUserIsRefused() throws {
        let daemon = try scriptedDaemon()
        _ = daemon.scratch.path.withCString { chmod($0, 0o755) }
        _ = daemon.socketPath.withCString { chmod($0, 0o666) }
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            received = b''
            try:
                s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\\n')
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    received += chunk
            except (ConnectionResetError, BrokenPipeError):
                pass  # closed before or with our initialize unread
            print('connected, then end of input after %d bytes' % len(received))
            """
        let (status, output) = run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--",
                                                        "/usr/bin/python3", "-c", script, daemon.socketPath.description])
        #expect(status == 0, "\(output)")
        #expect(output.contains("connected, then end of input after 0 bytes"), "\(output)")
        #expect(daemon.log().contains("refused a connection from another user"))
        // Our own user still gets in.
        let client = try daemon.connect()
        #expect(client.initialize() != nil)
    }

    /// A client in another mount namespace (a container, bubblewrap, a chroot) names paths the
    /// daemon would find elsewhere: like a sandboxed app, it may not present dialogs, its own
    /// or others'. The same script outside the namespace may.
    @Test func aClientThatSeesOtherFilesMayNotPresentDialogs() throws {
        let daemon = try bareDaemon()
        let script = """
            import json, socket, sys
            def session():
                connection = socket.socket(socket.AF_UNIX)
                connection.connect(sys.argv[1])
                return connection.makefile('rwb')
            def call(stream, method, params):
                stream.write(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': method, 'params': params}).encode() + b'\\n')
                stream.flush()
                while True:
                    message = json.loads(stream.readline())
                    if message.get('id') == 1:
                        return message.get('error', {}).get('code', 'ok')
            editor = session()
            call(editor, 'initialize', {'capabilities': {'presentsDialogs': True}})
            print('present', call(editor, 'presentImporter', {'allowedContentTypes': ['public.item']}))
            print('presenter role', call(session(), 'initialize', {'role': 'presenter'}))
            """
        let socket = daemon.socketPath.description
        // A mount namespace of its own: root may make one; anyone else needs a user namespace too.
        let unshare = getuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        let (status, confined) = run("/usr/bin/unshare", unshare + ["/usr/bin/python3", "-c", script, socket])
        #expect(status == 0, "\(confined)")
        #expect(confined.contains("present -32010"), "a confined client presented its own dialog: \(confined)")
        #expect(confined.contains("presenter role -32018"), "\(confined)")
        let (_, free) = run("/usr/bin/python3", ["-c", script, socket])
        #expect(free.contains("present ok") && free.contains("presenter role ok"), "\(free)")
    }

    /// A bridge started already orphaned has pid 1 for a parent, which started nothing: it is
    /// refused, not taken for pid 1's client. (Under a subreaper, such as `systemd --user` in a
    /// desktop's terminal, the orphan is the subreaper's, and is taken for its client, as
    /// protocol/README says.)
    @Test func aBridgeStartedOrphanedIsRefused() throws {
        let daemon = try scriptedDaemon()
        let script = """
            import os, sys, time
            wharf, socket = sys.argv[1:3]
            done_r, done_w = os.pipe()
            if os.fork() == 0:
                between = os.getpid()
                if os.fork() == 0:
                    deadline = time.monotonic() + 10
                    while os.getppid() == between and time.monotonic() < deadline:
                        time.sleep(0.01)  # until the process between has exited
                    os.write(done_w, b'adopted by %d\\n' % os.getppid())
                    request_r, request_w = os.pipe()
                    os.write(request_w, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\\n')
                    os.close(request_w)
                    os.dup2(request_r, 0)
                    os.dup2(done_w, 1)
                    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # its complaint is not this test's output
                    os.execv(wharf, [wharf, '--connect=' + socket])
                os._exit(0)
            os.close(done_w)
            answer = b''
            while chunk := os.read(done_r, 65536):
                answer += chunk
            adoption, _, rest = answer.partition(b'\\n')
            print(adoption.decode(), 'and answered' if rest else 'and nothing answered')
            """
        let (status, output) = run("/usr/bin/python3", ["-c", script, wharfExecutablePath(), daemon.socketPath.description])
        #expect(status == 0, "\(output)")
        if output.contains("adopted by 1 ") {
            #expect(output.contains("nothing answered"), "\(output)")
            #expect(daemon.log().contains("the process that started it (pid 1) is gone"), "\(daemon.log())")
        } else {
            #expect(output.contains("and answered"), "a bridge adopted by a subreaper is its client: \(output)")
        }
    }

    @Test func identitiesAreReadFromWhatTheSandboxesWrite() {
        let info = Array("[Application]\nname=org.gnome.TextEditor\nruntime=runtime/org.gnome.Platform/x86_64/45\n\n[Instance]\nname=ignored\n".utf8)
        #expect(VerifiedApp.flatpakApp(fromInfo: info) == "org.gnome.TextEditor")
        #expect(VerifiedApp.flatpakApp(fromInfo: Array("[Runtime]\nname=org.freedesktop.Sdk\n".utf8)) == "org.freedesktop.Sdk")
        #expect(VerifiedApp.flatpakApp(fromInfo: Array("[Application]\nname=../../etc\n".utf8)) == nil)
        #expect(VerifiedApp.flatpakApp(fromInfo: []) == nil)
        #expect(VerifiedApp.snapName(fromLabel: "snap.firefox.firefox (enforce)") == "firefox")
        #expect(VerifiedApp.snapName(fromLabel: "snap.code.hook.configure (complain)") == "code")
        #expect(VerifiedApp.snapName(fromLabel: "unconfined") == nil)
        #expect(VerifiedApp.snapName(fromLabel: "/usr/bin/man (enforce)") == nil)
    }

    @Test func anExecutablePathIsAnIdentityNoOtherPathShares() {
        #expect(VerifiedApp.executable("/usr/bin/nvim").identity == "exe:/usr/bin/nvim")
        #expect(VerifiedApp.executable("/usr/bin/nvim (deleted)").identity == "exe:/usr/bin/nvim")
        #expect(VerifiedApp.executable("/opt/a#b/tool").identity == "exe:/opt/a%23b/tool")
        #expect(VerifiedApp.executable("/opt/50%/x y").identity == "exe:/opt/50%25/x%20y")
        let latin1 = FilePath(bytes: Array("/opt/caf".utf8) + [0xE9])!
        #expect(VerifiedApp.executable(latin1).identity == "exe:/opt/caf%E9")
        #expect(!VerifiedApp.executable("/a#b").identity.contains("#"))
    }

    /// The key grants and bookmarks are kept under: the verified app and the name over the
    /// daemon; over standard I/O the declared name, which can never pass for a verified app.
    @Test func declaredNamesNeverPassForVerifiedApps() {
        let daemon = ClientOrigin(transport: .socket, app: .executable("/usr/bin/nvim"), pid: 7)
        #expect(daemon.ownerKey(name: "notes") == "exe:/usr/bin/nvim#notes")
        #expect(ClientOrigin.standardIO.ownerKey(name: "notes") == "notes")
        #expect(ClientOrigin.standardIO.ownerKey(name: "exe:/usr/bin/nvim#notes") == "declared:exe:/usr/bin/nvim#notes")
        #expect(ClientOrigin.standardIO.ownerKey(name: "flatpak:org.x.Y#a") == "declared:flatpak:org.x.Y#a")
    }
}
