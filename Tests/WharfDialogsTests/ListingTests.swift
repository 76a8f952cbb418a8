import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// `list`: what a frontend's browser shows, judged exactly as `choose` judges.
@Suite struct ListingTests {
    func entries(_ h: Harness, _ id: DialogID, _ path: FilePath? = nil) throws -> [DirectoryEntry] {
        let directory = path?.description
        return try h.engine.list(client: h.client, id: id, directory: directory, limit: 10_000).entries
    }

    @Test func directoriesComeFirstThenNamesInNaturalCaseInsensitiveOrder() throws {
        let h = Harness()
        for name in ["b.txt", "file10.txt", "File2.txt", "a.txt", "B.txt", "file1.txt", "zeta"] { h.dir.makeFile(name) }
        for name in ["Zoo", "alpha", "dir10", "dir9"] { h.dir.directory(name) }
        let id = try h.importer()
        #expect(try entries(h, id).map(\.displayName) == [
            "alpha", "dir9", "dir10", "Zoo",
            "a.txt", "B.txt", "b.txt", "file1.txt", "File2.txt", "file10.txt", "zeta",
        ])
    }

    @Test func entriesCarryTheirFactsAndEnabledMatchesWhatChooseAccepts() throws {
        let h = Harness()
        h.dir.makeFile("notes.txt", "12345")
        h.dir.makeFile("image.png")
        h.dir.directory("folder")
        let id = try h.importer()
        let listing = try h.engine.list(client: h.client, id: id)
        #expect(listing.directory == h.dir.path)
        #expect(listing.parent == h.dir.path.directory)
        #expect(listing.nextCursor == nil)
        let byName = Dictionary(uniqueKeysWithValues: listing.entries.map { ($0.displayName, $0) })
        let notes = try #require(byName["notes.txt"])
        #expect(notes.path == h.dir.at("notes.txt"))
        #expect(notes.url == FileURL.from(path: h.dir.at("notes.txt")))
        #expect(notes.contentType == "public.plain-text")
        #expect(notes.size == 5)
        #expect(notes.modified > 0)
        #expect(!notes.isDirectory && !notes.isHidden && !notes.isSymlink && !notes.isPackage)
        #expect(notes.enabled)
        #expect(byName["image.png"]?.enabled == false)
        #expect(byName["folder"]?.isDirectory == true)
        #expect(byName["folder"]?.enabled == false, "a file importer cannot choose directories")

        #expect(byName["image.png"]?.disabledReason == "it is of type public.png, and this dialog takes only public.plain-text")
        #expect(notes.disabledReason == nil)
        for entry in listing.entries {
            let refusal = dialogError { try h.engine.choose(client: h.client, id: h.importer(), urls: [entry.path]) }
            #expect((refusal == nil) == entry.enabled, "\(entry.name): listing says \(entry.enabled), choose says \(String(describing: refusal))")
            if case .rejectedChoice(_, let reason)? = refusal {
                #expect(entry.disabledReason == reason, "the listing gives the reason choose gives")
            } else {
                #expect(entry.disabledReason == nil)
            }
        }
    }

    @Test func hiddenFilesAreListedAtFirstOnlyWithIncludeHiddenFilesAndWheneverAsked() throws {
        let h = Harness()
        h.dir.makeFile(".hidden.txt")
        h.dir.makeFile("shown.txt")
        h.dir.directory(".git")
        let closed = try h.importer()
        #expect(try entries(h, closed).map(\.displayName) == ["shown.txt"])
        let revealed = try h.engine.list(client: h.client, id: closed, showHidden: true).entries
        #expect(revealed.map(\.displayName) == [".git", ".hidden.txt", "shown.txt"])
        #expect(revealed.map(\.enabled) == [false, true, true], "a shown hidden file may be chosen")
        let open = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, browserOptions: .includeHiddenFiles))
        let listed = try entries(h, open)
        #expect(listed.map(\.displayName) == [".git", ".hidden.txt", "shown.txt"])
        #expect(listed.map(\.isHidden) == [true, true, false])
        #expect(listed[1].enabled)
        #expect(try h.engine.list(client: h.client, id: open, showHidden: false).entries.map(\.displayName) == ["shown.txt"])
    }

    @Test func aCursorIntoAnEvictedListingKeepsItsHiddenEntries() throws {
        let h = Harness(listingCache: ListingCacheLimits(perClient: 3, inAll: 100))
        h.dir.makeFile(".a.txt")
        h.dir.makeFile("b.txt")
        h.dir.makeFile("c.txt")
        let id = try h.importer()
        let first = try h.engine.list(client: h.client, id: id, limit: 1, showHidden: true)
        #expect(first.entries.map(\.displayName) == [".a.txt"])
        _ = try h.engine.list(client: h.client, id: id, directory: "/", limit: 1)  // drops the first listing
        let cursor: String = try #require(first.nextCursor)
        let next = try h.engine.list(client: h.client, id: id, cursor: cursor, limit: 5)
        #expect(next.entries.map(\.displayName) == ["b.txt", "c.txt"])
    }

    @Test func packagesAreLeavesUnlessEnumerated() throws {
        let h = Harness()
        h.dir.directory("App.bundle")
        h.dir.makeFile("App.bundle/inside.txt")
        h.dir.directory("Folder")
        let leaves = try h.importer(["com.example.bundle"])
        let listed = try entries(h, leaves)
        #expect(listed.map(\.displayName) == ["Folder", "App.bundle"], "a package sorts among files")
        #expect(listed[1].isPackage && !listed[1].isDirectory)
        #expect(listed[1].contentType == "com.example.bundle")
        #expect(listed[1].enabled)
        guard case .cannotList(_, let reason)? = dialogError({ _ = try entries(h, leaves, h.dir.at("App.bundle")) }) else {
            Issue.record("listing into a package must be refused")
            return
        }
        #expect(reason.contains("enumeratePackages"))

        let browsable = try h.importer(["com.example.bundle"], options: DialogOptions(
            defaultDirectory: h.dir.path, browserOptions: .enumeratePackages))
        let enumerated = try entries(h, browsable)
        #expect(enumerated.map(\.displayName) == ["App.bundle", "Folder"])
        #expect(enumerated[0].isPackage && enumerated[0].isDirectory)
        #expect(try entries(h, browsable, h.dir.at("App.bundle")).map(\.displayName) == ["inside.txt"])
    }

    @Test func symlinksDescribeTheirTargetAndBrokenOnesAreNeverEnabled() throws {
        let h = Harness()
        let target = h.dir.makeFile("target.txt", "123")
        h.dir.directory("realdir")
        h.dir.symlink("link.txt", to: target)
        h.dir.symlink("dirlink", to: h.dir.at("realdir"))
        h.dir.symlink("broken.txt", to: h.dir.at("nowhere"))
        let id = try h.importer()
        let byName = Dictionary(uniqueKeysWithValues: try entries(h, id).map { ($0.displayName, $0) })
        #expect(byName["link.txt"]?.isSymlink == true)
        #expect(byName["link.txt"]?.size == 3)
        #expect(byName["link.txt"]?.enabled == true)
        #expect(byName["dirlink"]?.isDirectory == true)
        #expect(byName["broken.txt"]?.isSymlink == true)
        #expect(byName["broken.txt"]?.enabled == false)
        #expect(byName["broken.txt"]?.isDirectory == false)
    }

    @Test func urlEnabledAndTypesDecideEnabled() throws {
        let h = Harness()
        h.dir.makeFile("keep.txt")
        h.dir.makeFile("skip.txt")
        h.dir.makeFile("doc.md")
        let id = try h.importer(options: DialogOptions(
            defaultDirectory: h.dir.path, urlEnabled: .not(.nameMatches("skip*"))))
        let enabled = try entries(h, id).filter(\.enabled).map(\.displayName)
        #expect(enabled == ["doc.md", "keep.txt"], "Markdown conforms to plain text")
    }

    /// Whether the listed folder itself may be chosen is what `choose` says of it: never in a
    /// file importer, in a folder picker when `urlEnabled` lets it; an exporter is not told.
    @Test func theListedFolderMayBeChosenExactlyWhenChooseAcceptsIt() throws {
        let h = Harness()
        let projects = h.dir.directory("projects")
        h.dir.makeFile("notes.txt")
        let folders = DialogOptions(defaultDirectory: h.dir.path, urlEnabled: .nameMatches("proj*"))
        let cases: [(DialogID, FilePath, FolderChoice)] = [
            (try h.importer(options: DialogOptions(defaultDirectory: h.dir.path)), h.dir.path,
             .disabled(reason: "it is a directory, and this dialog takes only public.plain-text")),
            (try h.importer(["public.folder"], options: folders), h.dir.path,
             .disabled(reason: "the dialog's urlEnabled predicate does not enable it")),
            (try h.importer(["public.folder"], options: folders), projects, .enabled),
        ]
        for (id, folder, expected) in cases {
            let listing = try h.engine.list(client: h.client, id: id, directory: folder.description)
            #expect(listing.folderChoice == expected, "\(folder)")
            // Paged from the cache, the answer is the same.
            let page = try h.engine.list(client: h.client, id: id, directory: folder.description, limit: 1)
            if folder == h.dir.path {
                let cursor = try #require(page.nextCursor)
                #expect(try h.engine.list(client: h.client, id: id, cursor: cursor).folderChoice == expected)
            }
            let refusal = dialogError { try h.engine.choose(client: h.client, id: id, urls: [folder]) }
            if case .rejectedChoice(_, let reason)? = refusal {
                #expect(expected == .disabled(reason: reason), "choose says: \(reason)")
            } else {
                #expect(refusal == nil && expected == .enabled, "\(String(describing: refusal))")
            }
        }
        #expect(try h.engine.list(client: h.client, id: h.textExporter()).folderChoice == nil)
    }

    @Test func exporterListingsEnableDirectoriesAndFilesOfTheOfferedTypes() throws {
        let h = Harness()
        h.dir.directory("out")
        h.dir.makeFile("old.txt")
        h.dir.makeFile("photo.png")
        let id = try h.textExporter()
        let enabled = Dictionary(uniqueKeysWithValues: try entries(h, id).map { ($0.displayName, $0.enabled) })
        #expect(enabled == ["out": true, "old.txt": true, "photo.png": false])
    }

    @Test func listingErrorsSayWhy() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        let id = try h.importer()
        guard case .cannotList(let directory, let reason)? = dialogError({ _ = try entries(h, id, h.dir.at("missing")) }) else {
            Issue.record("a missing directory cannot be listed")
            return
        }
        #expect(directory == h.dir.at("missing"))
        #expect(reason == "No such file or directory")
        guard case .cannotList? = dialogError({ _ = try entries(h, id, file) }) else {
            Issue.record("a file cannot be listed")
            return
        }
        #expect(dialogError { _ = try h.engine.list(client: h.client, id: id, limit: 0) }
            == .invalidArgument(field: "limit", reason: "must be at least 1 (got 0)"))
        #expect(dialogError { _ = try h.engine.list(client: h.client, id: id, cursor: "garbage") } == .invalidCursor("garbage"))
    }

    @Test func listingWithoutADirectoryShowsWhereTheDialogIs() throws {
        let h = Harness()
        let sub = h.dir.directory("sub")
        h.dir.makeFile("sub/inner.txt")
        let id = try h.importer()
        _ = try h.engine.list(client: h.client, id: id, directory: FileURL.from(path: sub))
        let again = try h.engine.list(client: h.client, id: id)
        #expect(again.directory == sub)
        #expect(again.entries.map(\.displayName) == ["inner.txt"])
    }

    @Test func rootHasNoParent() throws {
        let h = Harness()
        let id = try h.importer()
        let listing = try h.engine.list(client: h.client, id: id, directory: "/", limit: 1)
        #expect(listing.directory == "/")
        #expect(listing.parent == nil)
    }

    @Test func pagingServesOneSnapshotAndANewFirstPageReReads() throws {
        let h = Harness()
        for index in 0..<25 { h.dir.makeFile("f\(index).txt") }
        let id = try h.importer()
        let first = try h.engine.list(client: h.client, id: id, limit: 10)
        #expect(first.entries.count == 10)
        // A file created after the first page does not appear in later pages of this listing.
        h.dir.makeFile("new.txt")
        var names = first.entries.map(\.displayName)
        var cursor = first.nextCursor
        while let next = cursor {
            let page = try h.engine.list(client: h.client, id: id, cursor: next, limit: 10)
            names += page.entries.map(\.displayName)
            cursor = page.nextCursor
        }
        #expect(names.count == 25)
        #expect(names == (0..<25).map { "f\($0).txt" })
        #expect(!names.contains("new.txt"))
        // A new first page reads the directory again and invalidates the old cursors.
        let fresh = try h.engine.list(client: h.client, id: id, limit: 10)
        #expect(try h.engine.list(client: h.client, id: id, limit: 100).entries.contains { $0.displayName == "new.txt" })
        #expect(dialogError { _ = try h.engine.list(client: h.client, id: id, cursor: first.nextCursor) }
            == .invalidCursor(first.nextCursor!))
        #expect(fresh.nextCursor != nil)
    }

    /// The names and their order are read once; each page's details when it is served. A file
    /// removed after the first page is left out of its page, one that changed shows as it is.
    @Test func laterPagesReadTheirEntriesWhenServedAndLeaveOutRemovedOnes() throws {
        let h = Harness()
        for index in 0..<6 { h.dir.makeFile("f\(index).txt", "x") }
        let id = try h.importer()
        let first = try h.engine.list(client: h.client, id: id, limit: 2)
        #expect(first.entries.map(\.displayName) == ["f0.txt", "f1.txt"])
        #expect(removeFile(h.dir.at("f3.txt")))
        writeFile(h.dir.at("f4.txt"), Array("grown".utf8))
        let second = try h.engine.list(client: h.client, id: id, cursor: first.nextCursor, limit: 3)
        #expect(second.entries.map(\.displayName) == ["f2.txt", "f4.txt"], "f3.txt went; the page holds what is left")
        #expect(second.entries.map(\.size) == [1, 5])
        let third = try h.engine.list(client: h.client, id: id, cursor: second.nextCursor)
        #expect(third.entries.map(\.displayName) == ["f5.txt"])
        #expect(third.nextCursor == nil)
    }

    /// A cursor's page is read when it is asked for: its folder gone by then, it says so.
    @Test func aPageOfAFolderGoneMeanwhileSaysSo() throws {
        let h = Harness()
        let folder = h.dir.directory("going")
        for index in 0..<3 { h.dir.makeFile("going/f\(index).txt") }
        let id = try h.importer()
        let first = try h.engine.list(client: h.client, id: id, directory: folder.description, limit: 1)
        #expect(first.entries.map(\.displayName) == ["f0.txt"])
        move(folder, to: h.dir.at("gone"))
        guard case .cannotList(let directory, let reason)? = dialogError({
            _ = try h.engine.list(client: h.client, id: id, cursor: first.nextCursor)
        }) else {
            Issue.record("a page of a folder that is gone must fail")
            return
        }
        #expect(directory == folder)
        #expect(reason == "No such file or directory")
    }

    /// Folders first, told without a `stat` where `readdir` says what an entry is: a link to a
    /// folder sorts with the folders, a broken link and a package (unless enumerated) with the
    /// files.
    @Test func linksAndPackagesSortWhereTheirTargetsBelong() throws {
        let h = Harness()
        h.dir.directory("real")
        h.dir.directory("Tool.bundle")
        h.dir.makeFile("a.txt")
        h.dir.symlink("z-link", to: h.dir.at("real"))
        h.dir.symlink("b-broken", to: h.dir.at("nowhere"))
        let id = try h.importer(["com.example.bundle", "public.plain-text"])
        #expect(try entries(h, id).map(\.displayName) == ["real", "z-link", "a.txt", "b-broken", "Tool.bundle"])
        let enumerated = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, browserOptions: .enumeratePackages))
        #expect(try entries(h, enumerated).map(\.displayName) == ["real", "Tool.bundle", "z-link", "a.txt", "b-broken"])
    }

    @Test func cursorsBelongToTheirDialog() throws {
        let h = Harness()
        for index in 0..<5 { h.dir.makeFile("f\(index).txt") }
        let a = try h.importer()
        let b = try h.importer()
        let page = try h.engine.list(client: h.client, id: a, limit: 2)
        let cursor = try #require(page.nextCursor)
        #expect(dialogError { _ = try h.engine.list(client: h.client, id: b, cursor: cursor) } == .invalidCursor(cursor))
    }

    /// Twelve thousand entries: a first page of the default size, one of the largest and a
    /// partial one. Enough for the pages to have to join up; more only made the suite slower
    /// (creating 100,000 files took a minute of it, and 30,000 twenty seconds under
    /// ThreadSanitizer).
    @Test func aLargeFolderIsPagedCompletelyAndInOrder() throws {
        let h = Harness()
        let count = 12_000
        let big = h.dir.directory("big")
        for index in 0..<count {
            writeFile(big.appending("entry\(index).\(index % 3 == 0 ? "txt" : "bin")"), [])
        }
        let id = try h.importer()
        var first = try h.engine.list(client: h.client, id: id, directory: big)
        #expect(first.entries.count == 1_000, "the default page size")
        var all = first.entries
        while let cursor = first.nextCursor {
            first = try h.engine.list(client: h.client, id: id, cursor: cursor, limit: 10_000)
            #expect(first.entries.count <= 10_000)
            all += first.entries
        }
        #expect(all.count == count)
        #expect(Set(all.map(\.displayName)).count == count)
        #expect(all.filter(\.enabled).count == (count + 2) / 3)
        // Natural order: entry9 before entry10 before entry100.
        #expect(all[0].displayName == "entry0.txt")
        #expect(all[1].displayName == "entry1.bin")
        #expect(all[10].displayName == "entry10.bin")
        #expect(all[count - 1].displayName == "entry\(count - 1).\((count - 1) % 3 == 0 ? "txt" : "bin")")
        let sorted = zip(all, all.dropFirst()).allSatisfy { NameOrdering.precedes($0.name, $1.name) }
        #expect(sorted)
    }
}

@Suite struct NameOrderingTests {
    @Test func digitRunsCompareByValue() {
        #expect(NameOrdering.precedes("a2", "a10"))
        #expect(NameOrdering.precedes("a9b", "a10a"))
        #expect(NameOrdering.precedes("v1.9", "v1.10"))
        #expect(!NameOrdering.precedes("a10", "a2"))
    }

    @Test func caseIsIgnoredAndRawBytesBreakTies() {
        #expect(NameOrdering.precedes("apple", "Banana"))
        #expect(NameOrdering.precedes("B", "b"), "equal when folded: raw bytes decide, uppercase first")
        #expect(!NameOrdering.precedes("b", "B"))
        #expect(NameOrdering.precedes("01", "1"))
        #expect(!NameOrdering.precedes("x", "x"))
    }

    @Test func nonASCIINamesAreFoldedToo() {
        #expect(NameOrdering.precedes("Émile", "éz"))
        #expect(NameOrdering.precedes("zebra", "Ärger"), "code point order after folding")
    }

    @Test func shorterPrefixComesFirst() {
        #expect(NameOrdering.precedes("file", "file.txt"))
        #expect(NameOrdering.precedes("a", "a1"))
    }
}

/// The encoded keys must order names exactly as a plain natural comparison does.
@Suite struct NameOrderingReferenceTests {
    /// The straightforward natural comparison the encoding stands in for: folded bytes, digit
    /// runs by value (leading zeros ignored), raw bytes on a tie.
    static func reference(_ a: String, _ b: String) -> Bool {
        func fold(_ s: String) -> [UInt8] {
            s.utf8.allSatisfy { $0 < 0x80 } ? s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } : Array(s.lowercased().utf8)
        }
        let x = fold(a), y = fold(b)
        func digit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if digit(x[i]) && digit(y[j]) {
                var endX = i; while endX < x.count && digit(x[endX]) { endX += 1 }
                var endY = j; while endY < y.count && digit(y[endY]) { endY += 1 }
                let runX = x[i..<endX].drop { $0 == 0x30 }, runY = y[j..<endY].drop { $0 == 0x30 }
                if runX.count != runY.count { return runX.count < runY.count }
                if !runX.elementsEqual(runY) { return runX.lexicographicallyPrecedes(runY) }
                i = endX; j = endY
                continue
            }
            if x[i] != y[j] { return x[i] < y[j] }
            i += 1; j += 1
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    @Test func encodedKeysAgreeWithThePlainNaturalComparison() {
        var generator = SplitMix(seed: 42)
        let alphabet = Array("aAbB0012 9._-zZé".unicodeScalars)
        var names: [String] = []
        for _ in 0..<3_000 {
            let length = Int(generator.next() % 8) + 1
            names.append(String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })))
        }
        var disagreements: [String] = []
        for index in 0..<names.count - 1 {
            let (a, b) = (names[index], names[index + 1])
            if NameOrdering.precedes(a, b) != Self.reference(a, b) { disagreements.append("\(a) vs \(b)") }
            if NameOrdering.precedes(b, a) != Self.reference(b, a) { disagreements.append("\(b) vs \(a)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    @Test func theListingSortAgreesWithTheReference() {
        var generator = SplitMix(seed: 7)
        let alphabet = Array("ab0123456789xY.".unicodeScalars)
        var seen = Set<String>()
        var scan = DirectoryReader.Scan()
        var names: [String] = []
        while names.count < 2_000 {
            let length = Int(generator.next() % 10) + 1
            let name = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
            guard seen.insert(name).inserted else { continue }
            names.append(name)
            scan.bytes += Array(name.utf8)
            scan.starts.append(scan.bytes.count)
            scan.isDirectory.append(false)
        }
        let sorted = DirectoryLister.sortedOrder(scan).map { names[$0] }
        #expect(sorted == names.sorted(by: Self.reference))
    }
}

/// A small deterministic generator, so failures reproduce.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
