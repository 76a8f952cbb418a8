import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

@Suite struct URLPredicateTests {
    let types = FakeTypes()

    func facts(
        name: String = "report.txt", path: FilePath = "/home/u/docs/report.txt", directory: Bool = false,
        size: Int64 = 100, modified: Double = 1_000
    ) -> EntryFacts {
        let status = FileStatus(kind: directory ? .directory : .regular, size: size, modified: modified)
        return EntryFacts(
            name: Array(name.utf8), directory: path.directory, status: status, isSymlink: false, isBrokenSymlink: false,
            browserOptions: [], types: types, readHead: { _ throws(SystemError) in 0 })
    }

    @Test func leavesTestOneFactEach() {
        let entry = facts()
        #expect(URLPredicate.nameMatches("*.txt").evaluate(entry, types: types))
        #expect(!URLPredicate.nameMatches("*.md").evaluate(entry, types: types))
        #expect(URLPredicate.pathMatches("/home/*/report.txt").evaluate(entry, types: types), "* crosses /")
        #expect(URLPredicate.conformsTo("public.text").evaluate(entry, types: types))
        #expect(!URLPredicate.conformsTo("public.image").evaluate(entry, types: types))
        #expect(URLPredicate.sizeAtMost(100).evaluate(entry, types: types))
        #expect(!URLPredicate.sizeAtMost(99).evaluate(entry, types: types))
        #expect(URLPredicate.sizeAtLeast(100).evaluate(entry, types: types))
        #expect(!URLPredicate.sizeAtLeast(101).evaluate(entry, types: types))
        #expect(URLPredicate.modifiedAfter(999).evaluate(entry, types: types))
        #expect(!URLPredicate.modifiedAfter(1_000).evaluate(entry, types: types), "strictly after")
        #expect(URLPredicate.isDirectory(false).evaluate(entry, types: types))
        #expect(URLPredicate.isDirectory(true).evaluate(facts(name: "d", directory: true), types: types))
        #expect(URLPredicate.isHidden(true).evaluate(facts(name: ".x"), types: types))
        #expect(URLPredicate.isHidden(false).evaluate(entry, types: types))
    }

    @Test func combinatorsCompose() {
        let entry = facts()
        #expect(URLPredicate.all([]).evaluate(entry, types: types))
        #expect(!URLPredicate.any([]).evaluate(entry, types: types))
        #expect(URLPredicate.all([.nameMatches("*.txt"), .sizeAtMost(1000)]).evaluate(entry, types: types))
        #expect(!URLPredicate.all([.nameMatches("*.txt"), .sizeAtMost(10)]).evaluate(entry, types: types))
        #expect(URLPredicate.any([.nameMatches("*.md"), .sizeAtMost(1000)]).evaluate(entry, types: types))
        #expect(URLPredicate.not(.isHidden(true)).evaluate(entry, types: types))
    }
}

extension FileStatus {
    /// A status made up for predicate tests.
    init(kind: Kind, size: Int64, modified: Double) {
        var raw = stat()
        raw.st_mode = kind == .directory ? S_IFDIR : S_IFREG
        raw.st_size = Int(size)
        raw.st_mtim.tv_sec = Int(modified)
        self.init(raw)
    }
}

import Glibc
