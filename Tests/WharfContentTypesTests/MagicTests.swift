import Testing
import WharfTestSupport
@testable import WharfContentTypes

/// The magic matcher and how its results combine with globs, over a test-written database.
@Suite struct MagicTests {
    let directory = ScratchDirectory("wharf-ct")
    let scope: ContentTypeScope

    init() {
        typealias F = MIMEDatabaseFixture
        var fixture = F()
        fixture.globs = [
            "50:application/x-vague:*.amb",
            "50:application/x-container:*.amb",
            "50:text/x-notes:*.amb",
            "50:application/x-lied:*.lie",
        ]
        fixture.subclasses = ["application/x-container application/x-base"]
        fixture.magic = [
            (90, "application/x-strong", [F.rule(offset: 0, Array("STRONG".utf8))]),
            // Nested: "OUTER" at 0 and then either "A" or "B" at 5.
            (70, "application/x-nested", [
                F.rule(offset: 0, Array("OUTER".utf8)),
                F.rule(indent: 1, offset: 5, Array("A".utf8)),
                F.rule(indent: 1, offset: 5, Array("B".utf8)),
            ]),
            // Mask: any byte whose high nibble is 0xA at offset 0, then "MASK".
            (60, "application/x-masked", [F.rule(offset: 0, [0xA0, 0x4D, 0x41, 0x53, 0x4B], mask: [0xF0, 0xFF, 0xFF, 0xFF, 0xFF])]),
            // Range: "RANGED" anywhere from offset 10 to 19.
            (55, "application/x-ranged", [F.rule(offset: 10, Array("RANGED".utf8), range: 10)]),
            // Host-order 16-bit word 0x1234 (stored little-endian on this machine).
            (52, "application/x-host16", [F.rule(offset: 0, [0x12, 0x34], wordSize: 2)]),
            (50, "application/x-base", [F.rule(offset: 0, Array("BASE".utf8))]),
            (40, "application/x-weak", [F.rule(offset: 0, Array("WEAK".utf8))]),
            (30, "application/x-desktop", [F.rule(offset: 0, Array("[Desktop Entry]".utf8))]),
        ]
        scope = ContentTypeScope(registry: ContentTypeRegistry(mimeDirectories: [fixture.write(into: directory)]))
    }

    func identify(_ name: String, _ bytes: [UInt8], sniff: Bool = true) throws -> Identification {
        try scope.identify(path: directory.write(name, bytes), sniff: sniff).get()
    }

    @Test func unknownNamesAreSniffed() throws {
        #expect(try identify("a", Array("STRONG stuff".utf8)) == Identification(
            identifier: scope.type(forMIMEType: "application/x-strong")!, mimeType: "application/x-strong", source: .magic))
        #expect(try identify("b", Array("WEAK".utf8) + [0]).mimeType == "application/x-weak")
    }

    @Test func nestedRulesNeedTheirParentAndOneChild() throws {
        #expect(try identify("n1", Array("OUTERA".utf8)).mimeType == "application/x-nested")
        #expect(try identify("n2", Array("OUTERB".utf8)).mimeType == "application/x-nested")
        #expect(try identify("n3", Array("OUTERC".utf8) + [0]).mimeType == "application/octet-stream")
        #expect(try identify("n4", Array("xxxxxA".utf8) + [0]).mimeType == "application/octet-stream")
    }

    @Test func masksRangesAndWordSizesAreHonoured() throws {
        #expect(try identify("m1", [0xA7] + Array("MASK".utf8)).mimeType == "application/x-masked")
        #expect(try identify("m2", [0xB7] + Array("MASK".utf8) + [0]).mimeType == "application/octet-stream")
        let padding = [UInt8](repeating: 0, count: 14)
        #expect(try identify("r1", padding + Array("RANGED".utf8)).mimeType == "application/x-ranged")
        #expect(try identify("r2", [UInt8](repeating: 0, count: 25) + Array("RANGED".utf8)).mimeType == "application/octet-stream")
        let host: [UInt8] = UInt16(1).littleEndian == 1 ? [0x34, 0x12] : [0x12, 0x34]
        #expect(try identify("w1", host + [0]).mimeType == "application/x-host16")
    }

    @Test func aSingleGlobWinsWithoutReading() throws {
        // The contents say "strong" but the name is unambiguous: the name decides.
        #expect(try identify("x.lie", Array("STRONG".utf8)) == Identification(
            identifier: scope.type(forMIMEType: "application/x-lied")!, mimeType: "application/x-lied", source: .extension))
    }

    @Test func highPriorityMagicOverridesConflictingGlobs() throws {
        #expect(try identify("x.amb", Array("STRONG".utf8)).mimeType == "application/x-strong")
    }

    @Test func aGlobCandidateThatInheritsFromTheMagicResultWins() throws {
        // BASE has priority 50; x-container (second candidate) is a subclass of x-base.
        let found = try identify("y.amb", Array("BASE".utf8))
        #expect(found.mimeType == "application/x-container")
        #expect(found.source == .magic)
        // Text contents pick the text candidate even though it is listed last.
        #expect(try identify("z.amb", Array("hello\n".utf8)).mimeType == "text/x-notes")
    }

    @Test func unrelatedLowPriorityMagicLeavesTheFirstGlob() throws {
        let found = try identify("w.amb", Array("WEAK".utf8) + [0])
        #expect(found.mimeType == "application/x-vague")
        #expect(found.source == .extension)
    }

    @Test func withoutSniffingAmbiguousNamesTakeTheFirstGlob() throws {
        #expect(try identify("s.amb", Array("STRONG".utf8), sniff: false).mimeType == "application/x-vague")
        #expect(try identify("s", Array("STRONG".utf8), sniff: false) == Identification(
            identifier: "public.data", mimeType: "application/octet-stream", source: .fallback))
    }

    @Test func textAndBinaryFallbacks() throws {
        #expect(try identify("t", Array("plain words\twith\u{0C}whitespace\u{08}\n".utf8)) == Identification(
            identifier: "public.plain-text", mimeType: "text/plain", source: .fallback))
        #expect(try identify("u", Array("héllo wörld ✓\n".utf8)).mimeType == "text/plain")
        #expect(try identify("b", [0x01, 0x02, 0x03]) == Identification(
            identifier: "public.data", mimeType: "application/octet-stream", source: .fallback))
        #expect(try identify("e", Array("escape \u{1B}[0m".utf8)).mimeType == "application/octet-stream")
    }

    @Test func contentsAloneNeverMakeADesktopEntry() throws {
        #expect(try identify("launcher", Array("[Desktop Entry]\nExec=x\n".utf8)).mimeType == "text/plain")
    }

    @Test func sniffingReadsOnlyTheHead() throws {
        // A rule beyond 4 KiB is never seen: the file is judged on its first 4096 bytes.
        let big = [UInt8](repeating: 0x41, count: 1 << 20) + [0]
        #expect(try identify("big", big).mimeType == "text/plain")
    }

    @Test func malformedMagicLinesAreSkipped() {
        var file = Array("MIME-Magic".utf8) + [0, 0x0A]
        file += Array("[50:application/x-ok]\n".utf8)
        file += Array(">0=".utf8) + [0, 2] + Array("OK".utf8) + Array("!unknown\n".utf8)  // voided line
        file += Array(">0=".utf8) + [0, 2] + Array("OK".utf8) + [0x0A]
        file += Array("garbage line\n".utf8)
        let sections = MagicTable.parse(file)
        #expect(sections.count == 1)
        #expect(sections.first?.rules.count == 1)
        #expect(MagicTable.parse(Array("not magic".utf8)).isEmpty)
    }
}
