import Glibc
import Testing
import WharfSystem
import WharfTestSupport

@Suite struct FilePathNormalization {
    @Test(arguments: [
        ("/", "/"), ("//", "/"), ("/a/b", "/a/b"), ("/a//b/", "/a/b"), ("/a/./b", "/a/b"),
        ("/a/b/..", "/a"), ("/a/b/../../..", "/"), ("/../x", "/x"), ("/a/.../b", "/a/.../b"),
        ("/a/..b/c", "/a/..b/c"), ("/café/ü/../é", "/café/é"),
        // The edges of the already-normal fast path: a last component that is `.` or `..`, a
        // trailing slash, dots that are only part of a name.
        ("/a/.", "/a"), ("/a/..", "/"), ("/.", "/"), ("/..", "/"), ("/a/", "/a"), ("/.a/b.", "/.a/b."),
        ("/a/..x/.y", "/a/..x/.y"),
    ])
    func dotsAndSlashesFoldLexically(path: String, expected: String) {
        #expect(FilePath(path)!.normalized == FilePath(expected)!)
    }

    @Test func relativePathsStartAtTheWorkingDirectory() {
        #expect(FilePath("x/../y").normalized == FilePath.current().appending("y").normalized)
    }

    @Test(arguments: [
        ("/a/b.txt", "b.txt", "/a"), ("/a", "a", "/"), ("/", "/", "/"), ("/a/b/", "b", "/a"), ("//a", "a", "/"),
        ("a", "a", "."),
    ])
    func lastComponentAndDirectory(path: String, last: String, directory: String) {
        let path = FilePath(path)!
        #expect(path.lastComponent == Array(last.utf8))
        #expect(path.directory == FilePath(directory)!)
    }

    @Test func containmentIsByWholeComponents() {
        let folder: FilePath = "/a/b"
        #expect(folder.contains("/a/b"))
        #expect(folder.contains("/a/b/c"))
        #expect(!folder.contains("/a/bc"))
        #expect(!folder.contains("/a"))
        #expect(FilePath.root.contains("/anything"))
    }

    @Test func emptyPathsAndNULAreNotPaths() {
        // Through variables: `FilePath("literal")` is the literal initializer, which traps on these.
        let empty = "", withNUL = "/a\u{0}b"
        #expect(FilePath(empty) == nil)
        #expect(FilePath(withNUL) == nil)
        #expect(FilePath(bytes: [0x2F, 0x00]) == nil)
    }

    /// Exactly one slash between the two, whatever either brings; a name's bytes are kept as
    /// they are (not UTF-8 here), except NUL, which no path can hold.
    @Test(arguments: [("/a", "b", "/a/b"), ("/a/", "b", "/a/b"), ("/a", "//b/c", "/a/b/c"), ("/", "b", "/b"),
                      ("/a", "b/", "/a/b/"), ("/a", "b\u{0}c", "/a/bc")])
    func appendingJoinsWithOneSlash(base: String, name: String, expected: String) {
        #expect(FilePath(base)!.appending(name) == FilePath(expected)!)
    }

    @Test func appendingKeepsBytesThatAreNotText() {
        #expect(FilePath("/a").appending([0x2F, 0xFF, 0x00, 0xFE] as [UInt8]).bytes == Array("/a/".utf8) + [0xFF, 0xFE])
    }
}

/// A path is bytes: two names Unicode calls equal are two paths, and a name that is not UTF-8
/// is kept exactly.
@Suite struct PathsAreBytes {
    static let precomposed = "/d/caf\u{E9}"        // é as one code point
    static let decomposed = "/d/cafe\u{301}"        // e + combining acute

    @Test func canonicallyEquivalentNamesAreDifferentPaths() {
        // Swift's String says they are equal; the file system says they are two files.
        #expect(Self.precomposed == Self.decomposed)
        let a = FilePath(Self.precomposed)!, b = FilePath(Self.decomposed)!
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(!a.contains(b) && !b.contains(a))
        #expect(a.url != b.url)
    }

    @Test func aNameThatIsNotUTF8IsNotTheReplacementCharacter() {
        let raw = FilePath(bytes: Array("/d/x".utf8) + [0xFF])!
        let replaced = FilePath("/d/x\u{FFFD}")
        #expect(raw != replaced)
        #expect(raw.url == "file:///d/x%FF")
        #expect(replaced.url == "file:///d/x%EF%BF%BD")
        #expect(FileURL.path(from: raw.url) == raw)
    }

    /// A raw `?` or `#` starts a query or a fragment, which name nothing on disk: such a URL is
    /// refused, where it had been cut short there, so `file:///d/q?x.txt` named `/d/q` (another
    /// file, or none) and `pic.png#x` was taken as `pic.png`. A name holding those characters is
    /// written `%3F`, `%23`, as Wharf writes it.
    @Test func aQueryOrAFragmentIsRefusedNotCutOff() {
        for url in ["file:///d/q?x.txt", "file:///d/h#x.txt", "file:///d/pic.png?x=1", "file:///d/pic.png#x", "file://localhost/d/a?"] {
            #expect(FileURL.path(from: url) == nil, "\(url)")
        }
        #expect(FileURL.path(from: "file:///d/q%3Fx%23.txt") == FilePath("/d/q?x#.txt"))
        #expect(FilePath("/d/q?x#.txt").url == "file:///d/q%3Fx%23.txt")
    }

    /// Property: for random byte names (every byte but `/` and NUL, UTF-8 or not), the URL of a
    /// path decodes to exactly that path, and distinct paths never share a URL.
    @Test func everyPathSurvivesTheURLRoundTripAndURLsAreDistinct() {
        var random = SeededRandom(seed: 0x5EED_0001)
        var byURL: [String: FilePath] = [:]
        for _ in 0..<5_000 {
            let length = Int.random(in: 1...12, using: &random)
            var name: [UInt8] = []
            while name.count < length {
                let byte = UInt8.random(in: 1...255, using: &random)
                if byte != 0x2F { name.append(byte) }
            }
            let path = FilePath("/base").appending(name)
            let url = path.url
            #expect(url.utf8.allSatisfy { $0 < 0x80 }, "a URL is ASCII: \(url)")
            #expect(FileURL.path(from: url) == path, "\(name)")
            if let other = byURL[url] { #expect(other == path, "two paths share \(url)") }
            byURL[url] = path
        }
    }

    @Test func urlsWrittenWithRawUnicodeKeepTheClientsBytes() {
        #expect(FileURL.path(from: "file:///d/caf\u{E9}") == FilePath(Self.precomposed)!)
        #expect(FileURL.path(from: "file:///d/cafe\u{301}") == FilePath(Self.decomposed)!)
        #expect(FileURL.path(from: "file:///d/%ZZ") == nil)
        #expect(FileURL.path(from: "file:///d/%00") == nil)
        #expect(FileURL.path(from: "http:///d") == nil)
    }

    @Test func bothNamesLiveSideBySideOnDisk() throws {
        let scratch = ScratchDirectory("wharf-bytes")
        let nfc = scratch.path(bytes: Array("caf\u{E9}".utf8))
        let nfd = scratch.path(bytes: Array("cafe\u{301}".utf8))
        let raw = scratch.path(bytes: [0x78, 0xFF])
        writeFile(nfc, "precomposed")
        writeFile(nfd, "decomposed")
        writeFile(raw, "not UTF-8")
        #expect(readText(nfc) == "precomposed")
        #expect(readText(nfd) == "decomposed")
        #expect(readText(raw) == "not UTF-8")
        let names = Set(directoryNames(scratch.path))
        #expect(names == [nfc.lastComponent, nfd.lastComponent, raw.lastComponent])
    }
}

/// Path handling is linear in the path's length: a 128 KiB path of tiny components, which a
/// hostile client may send, takes one pass (these would take seconds if any step were
/// quadratic; the bench measures the time, the test only that nothing is lost).
@Suite struct LongPaths {
    @Test func aHugePathOfTinyComponentsNormalisesInOnePass() {
        let components = 64 * 1024
        var bytes: [UInt8] = []
        for index in 0..<components { bytes += index % 2 == 0 ? [0x2F, 0x61] : [0x2F, 0x2E, 0x2E] }
        let path = FilePath(bytes: bytes)!
        #expect(path.bytes.count > 128 * 1024 - 1)
        #expect(path.normalized == .root)
        let deep = FilePath(bytes: Array(repeating: Array("/a".utf8), count: components).joined())!
        #expect(deep.normalized == deep)
        #expect(FileURL.path(from: deep.url) == deep)
        #expect(FilePath("/a").contains(deep))
    }
}
