import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// `wharf access list` for a person (issue 12, class 5): names that came from clients and file
/// names are printed escaped, `--json` carries exact bytes, and listing never creates a store.
@Suite struct AccessCommandForPeople {
    let scratch = ScratchDirectory()
    let state = ScratchDirectory("wharf-state")

    /// Runs `wharf access …` against the test's state directory; its status, standard output
    /// and standard error.
    func access(_ arguments: [String]) throws -> (status: Int32?, output: [UInt8], errors: String) {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["access"] + arguments + ["--state-dir", state.directory])
        let output = child.readOutput()
        return (child.waitForExit(seconds: 10), output, child.readErrors())
    }

    /// A server whose client, named `app`, was granted `names` (files in `scratch`) and made a
    /// bookmark of each: bookmarks are in the store before `createBookmark` answers, so the
    /// command sees them at once (grants are written behind, a few milliseconds later).
    func bookmarkingSession(app: String, names: [[UInt8]]) throws -> WireClient {
        let client = try frontend(["--state-dir", state.directory], name: app)
        for name in names {
            writeFile(scratch.path(bytes: name), Array("x".utf8))
            let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
            #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.path(bytes: name).url)]]) == [:])
            let url = try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first)
            #expect(client.call("createBookmark", ["url": url])?["bookmark"] != nil)
        }
        return client
    }

    /// The rows of `wharf access list` of one kind, split into fields.
    func rows(_ output: [UInt8], kind: String) -> [[String]] {
        String(decoding: output, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0.count > 1 && $0[1] == kind }
    }

    @Test func namesAndPathsAreEscapedSoNoRowCanBeForgedNorTheTerminalCommanded() throws {
        let hostile = "evil\tb99\tbookmark\nforged\u{1B}]0;owned\u{07}\u{9B}31m\u{202E}"
        let fileName: [UInt8] = Array("tab\there\nnew\u{1B}[2J".utf8) + [0xFF] + Array("\\x41".utf8)
        let client = try bookmarkingSession(app: hostile, names: [fileName])
        let listed = try access(["list"])
        #expect(listed.status == 0)
        let text = String(decoding: listed.output, as: UTF8.self)
        #expect(text.split(separator: "\n").allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 7 },
                "every line has exactly the seven columns: \(text)")
        let row = try #require(rows(listed.output, kind: "bookmark").first)
        #expect(rows(listed.output, kind: "bookmark").count == 1, "no forged row")
        #expect(row[2] == "evil\\tb99\\tbookmark\\nforged\\x1B]0;owned\\x07\\xC2\\x9B31m\\u{202E}")
        #expect(row[6] == TerminalEscapes.expected(scratch.path(bytes: fileName).bytes))
        #expect(row[6].hasSuffix("tab\\there\\nnew\\x1B[2J\\xFF\\\\x41"))
        #expect(!listed.output.contains(0x1B) && !listed.output.contains(0x07), "no control byte reaches the terminal")
        #expect(!text.unicodeScalars.contains("\u{9B}") && !text.unicodeScalars.contains("\u{202E}"))
        _ = client
    }

    @Test func jsonCarriesExactPathsAsURLs() throws {
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" \u{1B}.txt".utf8)  // Latin-1 é: not UTF-8
        let client = try bookmarkingSession(app: "json-app", names: [name])
        let listed = try access(["list", "--json"])
        #expect(listed.status == 0)
        let document = try JSON.parse(listed.output)
        let entry = try #require(document["entries"]?.arrayValue?.first { $0["kind"] == "bookmark" })
        #expect(entry["app"] == "json-app")
        let url = try #require(entry["url"]?.stringValue)
        #expect(FileURL.path(from: url)?.bytes == scratch.path(bytes: name).bytes, "the URL is the exact bytes")
        #expect(url.hasSuffix("/caf%E9%20%1B.txt"))
        #expect(entry["path"]?.stringValue?.hasSuffix("caf\u{FFFD} \u{1B}.txt") == true, "the display string")
        #expect(entry["readOnly"] == true && entry["isDirectory"] == false && entry["activeLeases"] == 0)
        #expect(entry["created"]?.stringValue?.hasSuffix("Z") == true)
        #expect(entry["id"]?.stringValue?.hasPrefix("b") == true)
        _ = client
    }

    @Test func listingWhereNoStoreExistsCreatesNone() throws {
        let missing = state.path("never-used")
        for arguments in [["list"], ["list", "--json"]] {
            let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["access"] + arguments + ["--state-dir", missing.description])
            let output = child.readOutputText()
            #expect(child.waitForExit(seconds: 10) == 0)
            let store = missing.appending("state.sqlite3").description
            #expect(output == (arguments.count == 1
                ? "No app holds access to anything (there is no state store at \(store)).\n" : "{\"entries\":[]}\n"))
        }
        #expect(!exists(missing), "no state directory was made")
        let revoke = try ChildProcess(path: wharfExecutablePath(), arguments: ["access", "revoke", "g1", "--state-dir", missing.description])
        #expect(revoke.waitForExit(seconds: 10) == 1)
        #expect(!exists(missing), "nor by revoke")
    }

    @Test func listingAnExistingStoreWritesNothingToIt() throws {
        let client = try bookmarkingSession(app: "reader", names: [Array("a.txt".utf8)])
        #expect(client.shutdownAndExit() == 0)
        let database = state.path("state.sqlite3")
        let before = try #require(readFile(database))
        let listed = try access(["list"])
        #expect(listed.status == 0)
        #expect(rows(listed.output, kind: "bookmark").count == 1)
        #expect(rows(listed.output, kind: "grant").isEmpty, "the session's grants ended with it")
        #expect(readFile(database) == before, "the database is unchanged")
    }

    /// Grants are written behind, so this one polls the store (across processes there is no
    /// event to await) before killing the server that holds them.
    @Test func aGrantOfADeadProcessIsNotListed() throws {
        let client = try bookmarkingSession(app: "crashing", names: [Array("b.txt".utf8)])
        let deadline = Deadline(secondsFromNow: 10)
        while try rows(access(["list"]).output, kind: "grant").isEmpty && !deadline.hasPassed {
            ProcessControl.sleep(milliseconds: 20)
        }
        #expect(try rows(access(["list"]).output, kind: "grant").count == 1)
        try #require(client.process).kill()
        _ = client.waitForExit()
        #expect(try rows(access(["list"]).output, kind: "grant").isEmpty)
        #expect(try rows(access(["list"]).output, kind: "bookmark").count == 1)
    }

    @Test func jsonIsOnlyAnOptionOfList() throws {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["access", "revoke", "g1", "--json"])
        #expect(child.waitForExit(seconds: 10) == 2)
    }
}

/// The escaping `wharf access list` documents, written out independently of the server's code.
enum TerminalEscapes {
    static func expected(_ bytes: [UInt8]) -> String {
        var output = ""
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x5C: output += "\\\\"
            case 0x09: output += "\\t"
            case 0x0A: output += "\\n"
            case 0x0D: output += "\\r"
            case 0x00...0x1F, 0x7F,
                 0x80...0xFF where !(byte >= 0xC2 && continuesAsUTF8(bytes, index)):
                output += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded
            default:
                // ASCII, or a lead byte of valid UTF-8 (the corpus holds no C1 or bidi characters).
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                output += String(decoding: bytes[index..<(index + length)], as: UTF8.self)
                index += length
                continue
            }
            index += 1
        }
        return output
    }

    private static func continuesAsUTF8(_ bytes: [UInt8], _ index: Int) -> Bool {
        let length = bytes[index] < 0xE0 ? 2 : bytes[index] < 0xF0 ? 3 : 4
        guard index + length <= bytes.count else { return false }
        return bytes[(index + 1)..<(index + length)].allSatisfy { $0 & 0xC0 == 0x80 }
    }
}

private extension String {
    var leftPadded: String { count == 1 ? "0" + self : self }
}
