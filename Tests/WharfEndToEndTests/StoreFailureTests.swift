import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// The state store failing under a running server and at its start (issue 12, class 5): the
/// client's error says what failed, in its message and `data.store`, and the log says it too.
@Suite struct StateStoreFailures {
    let scratch = ScratchDirectory()

    /// Fills the file system at `directory` to its last byte.
    func fill(_ directory: FilePath) throws {
        let filler = try FileDescriptor.open(directory.appending("filler"), O_WRONLY | O_CREAT, mode: 0o600)
        let chunk = [UInt8](repeating: 0x55, count: 64 << 10)
        while (try? filler.write(all: chunk)) != nil {}
        while (try? filler.write(all: [0x55])) != nil {}
    }

    /// Picks `name` in a frontend importer; its URL.
    func pick(_ client: WireClient, _ name: String) throws -> JSON {
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url(name))]]) == [:])
        return try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first)
    }

    @Test func aFullDiskIsNamedInTheErrorOfARequestAndInTheLog() throws {
        let small = try scratch.tmpfs("small", size: 2 << 20)
        let stateDirectory = small.appending("state")
        scratch.write("picked.txt", "picked")
        let client = try frontend(["--state-dir", stateDirectory.description], name: "full-disk")
        let url = try pick(client, "picked.txt")
        // The grant is written behind: wait until the store holds it (another process can only
        // ask), so that no write is under way when the disk fills.
        let deadline = Deadline(secondsFromNow: 10)
        while !deadline.hasPassed {
            let listed = run(wharfExecutablePath(), ["access", "list", "--json", "--state-dir", stateDirectory.description])
            if listed.output.contains("\"kind\":\"grant\"") { break }
            ProcessControl.sleep(milliseconds: 10)
        }
        try fill(small)

        let failed = try #require(client.request("createBookmark", ["url": url]))
        #expect(failed["error"]?["code"] == -32603)
        #expect(failed["error"]?["data"]?["store"] == "diskFull")
        #expect(failed["error"]?["message"]?.stringValue?.contains("disk is full") == true, "\(failed)")
        try #require(client.shutdownAndExit() != nil)
        let log = try #require(client.process).readErrors()
        #expect(log.contains("diskFull") && log.contains("disk is full"), "the log says what failed: \(log)")
    }

    /// Grants are written behind: no request waits for the write, so its failure is told to
    /// the log, and only there.
    @Test func aFullDiskUnderWrittenBehindGrantsIsLogged() throws {
        let small = try scratch.tmpfs("small", size: 2 << 20)
        scratch.write("picked.txt", "picked")
        let client = try frontend(["--state-dir", small.appending("state").description], name: "full-disk")
        // The store opens in the background; listing access waits for it. Filling the disk
        // before it opened would leave no usable store at all: a different case.
        #expect(client.call("listAccess", [:]) != nil)
        try fill(small)
        let url = try pick(client, "picked.txt")
        #expect(client.call("resolveAccess", ["url": url])?["accessId"] != nil, "grants are checked in memory")
        let process = try #require(client.process)
        var log = ""
        let deadline = Deadline(secondsFromNow: 10)
        while !log.contains("could not write the session state") && !deadline.hasPassed {
            log += process.errorsSoFar()
            if !log.contains("could not write the session state") { ProcessControl.sleep(milliseconds: 10) }
        }
        #expect(log.contains("could not write the session state") && log.contains("disk is full"), "\(log)")
    }

    @Test func aStateDirectoryThatIsAFileEndsTheServerWithStatusOne() throws {
        let file = scratch.write("not-a-directory", "x")
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--state-dir", file.description])
        #expect(child.waitForExitOrKill(seconds: 10) == 1)
        let message = child.readErrors()
        #expect(message.contains("--state-dir \(file)"), "\(message)")
    }

    @Test func aStateDirectoryThatIsAFileEndsTheDaemonWithStatusOneAndRemovesItsSocket() throws {
        let file = scratch.write("not-a-directory", "x")
        let socket = scratch.path.appending("wharf.sock")
        let child = try ChildProcess(path: wharfExecutablePath(),
                                     arguments: ["--listen=\(socket)", "--state-dir", file.description])
        #expect(child.waitForExitOrKill(seconds: 10) == 1)
        let message = child.readErrors()
        #expect(message.contains("--state-dir \(file)"), "\(message)")
        #expect((try? FileStatus.ofLink(socket)) == nil, "the socket it bound is removed")
    }

    /// A state directory that cannot be created (its parent is on a read-only file system) is
    /// a place named wrongly: the server says so and exits 1 before reading input.
    @Test func aStateDirectoryThatCannotBeCreatedEndsTheServerWithStatusOne() throws {
        let directory = scratch.makeDirectory("read-only")
        try scratch.makeReadOnly(directory)
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--state-dir", directory.appending("state").description])
        #expect(child.waitForExitOrKill(seconds: 10) == 1)
        let message = child.readErrors()
        #expect(message.contains("Read-only file system") || message.contains("cannot be written"), "\(message)")
    }

    /// A state directory that exists on a read-only file system: the server starts and serves
    /// dialogs, grants and leases from memory, and what needs the store is refused saying why,
    /// `data.store` `readOnly`, whichever request first found it unwritable.
    @Test(arguments: ["createBookmark", "listAccess"])
    func aReadOnlyStateDirectoryServesFromMemoryAndRefusesWhatNeedsTheStore(_ first: String) throws {
        let directory = scratch.makeDirectory("read-only")
        _ = scratch.makeDirectory("read-only/state")
        try scratch.makeReadOnly(directory)
        scratch.write("picked.txt", "picked")
        let client = try frontend(["--state-dir", directory.appending("state").description], name: "read-only")
        let url = try pick(client, "picked.txt")
        #expect(client.call("resolveAccess", ["url": url])?["accessId"] != nil, "a grant is kept in memory")

        for method in first == "listAccess" ? ["listAccess", "createBookmark"] : ["createBookmark", "listAccess"] {
            let failed = try #require(client.request(method, method == "createBookmark" ? ["url": url] : [:]))
            #expect(failed["error"]?["code"] == -32603, "\(method): \(failed)")
            #expect(failed["error"]?["data"]?["store"] == "readOnly", "\(method): \(failed)")
            #expect(failed["error"]?["message"]?.stringValue?.contains("cannot be written") == true, "\(failed)")
        }
        #expect(client.call("ping", [:]) == [:], "the server serves on")
        try #require(client.shutdownAndExit() != nil)
    }
}
