import Testing
@testable import WharfContentTypes

/// The pieces that make loading the MIME database fast: the name table that numbers types
/// straight from the files' bytes, the line and field readers, and the suffix trie laid out
/// from sorted keys. Each is checked against a plain model of what it replaces.
@Suite struct LoadingTests {
    @Test func namesAreNumberedInOrderAndFoundWhateverTheirCase() {
        var table = MIMENameTable(capacity: 2)
        let names = (0 ..< 1000).map { "application/x-type-\($0)" }
        for (index, name) in names.enumerated() {
            #expect(table.intern(name) == Int32(index))
        }
        // Far past the initial capacity: every name still has its number, spelled any way.
        #expect(table.count == 1000)
        for (index, name) in names.enumerated() {
            #expect(table.number(of: name.uppercased()) == Int32(index))
            #expect(table.intern(name) == Int32(index))
        }
        #expect(table.names == names)
        #expect(table.intern("TEXT/Plain") == 1000)
        #expect(table.names.last == "text/plain")
        #expect(table.number(of: "text/plai") == nil)
        #expect(table.number(of: "") == nil)
    }

    @Test func linesSkipEmptyOnesAndFieldsKeepEmptyOnes() {
        let text = Array("\n50:text/x-a:*.a\n\n0:text/x-b::cs:later\nlast".utf8)
        text.withUnsafeBufferPointer { file in
            var lines = Lines(file)
            var read: [[String]] = []
            while let line = lines.next() {
                var fields = FieldReader(line)
                var row: [String] = []
                while let field = fields.next(until: UInt8(ascii: ":")) { row.append(String(decoding: field, as: UTF8.self)) }
                read.append(row)
            }
            let split = String(decoding: text, as: UTF8.self).split(separator: "\n")
                .map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
            #expect(read == split)
        }
    }

    @Test func suffixTrieFindsTheLongestMatchingSuffixLikeAPlainScan() {
        // Suffixes over a tiny alphabet nest in each other a lot (`*.ab`, `*.b`, `*.bab`…),
        // which is what the trie's layout has to get right.
        var generator = SplitMix(seed: 7)
        let alphabet = Array("abAB.".utf8)
        var suffixes: [String] = []
        var seen: Set<String> = []
        while suffixes.count < 600 {
            let length = 1 + generator.next(below: 7)
            let suffix = String(decoding: (0 ..< length).map { _ in alphabet[generator.next(below: alphabet.count)] }, as: UTF8.self)
            if seen.insert(suffix.lowercased()).inserted { suffixes.append(suffix) }
        }
        let rules = suffixes.enumerated().map { index, suffix in
            GlobRule(weight: 50, type: Int32(index), pattern: "*" + suffix, caseSensitive: false)
        }
        let table = GlobTable(rules: rules)
        for _ in 0 ..< 2000 {
            let name = "f" + String(decoding: (0 ..< generator.next(below: 10)).map { _ in alphabet[generator.next(below: alphabet.count)] }, as: UTF8.self)
            let lowered = name.lowercased()
            let expected = suffixes.indices
                .filter { lowered.hasSuffix(suffixes[$0].lowercased()) }
                .max { suffixes[$0].count < suffixes[$1].count }
            var found: [Int32] = []
            table.forEachMatch(Array(name.utf8)) { found.append($0.type) }
            #expect(found.first == expected.map(Int32.init), "\(name)")
        }
    }
}

/// A small deterministic generator, so a failure names an input that can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
