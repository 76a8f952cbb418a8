import Testing
import WharfFileManagers

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// What each tool writes as its choice, taken apart as bytes.
@Suite struct FileManagerOutputTests {
    func parse(_ output: [UInt8], _ format: FileManagerOutput.Format) -> FileManagerOutput.Parsed {
        FileManagerOutput.parse(output, as: format)
    }

    @Test func nulTerminatedPathsCarryEveryByteANameCanHold() {
        #expect(parse(bytes("/d/a.txt\0/d/new\nline.txt\0"), .nulTerminated) == .paths([bytes("/d/a.txt"), bytes("/d/new\nline.txt")]))
        #expect(parse(bytes("/d/caf") + [0xE9] + [0], .nulTerminated) == .paths([bytes("/d/caf") + [0xE9]]), "not UTF-8")
        #expect(parse([], .nulTerminated) == .nothing, "vifm's :q with nothing chosen")
        #expect(parse(bytes("d/a\0"), .nulTerminated) == .malformed("not an absolute path"))
    }

    @Test func linesAreAbsolutePathsAndALineThatIsNotOneIsANewlineInAName() {
        #expect(parse(bytes("/d/a.txt\n/d/b c.txt\n"), .lines) == .paths([bytes("/d/a.txt"), bytes("/d/b c.txt")]), "nnn, ranger")
        #expect(parse(bytes("/d/a.txt\n/d/b.txt"), .lines) == .paths([bytes("/d/a.txt"), bytes("/d/b.txt")]), "lf: no final newline")
        #expect(parse(bytes("/d/caf") + [0xE9, 0x0A], .lines) == .paths([bytes("/d/caf") + [0xE9]]), "not UTF-8")
        #expect(parse(bytes("/d/new\nline.txt\n"), .lines) == .newlineInName)
        #expect(parse(bytes("/d/a.txt\n/d/new\nline.txt"), .lines) == .newlineInName, "never /d/a.txt alone")
        #expect(parse(bytes("/d/ends with\n\n"), .lines) == .newlineInName, "a name that ends in a newline")
        #expect(parse([], .lines) == .nothing)
        #expect(parse(bytes("\n"), .lines) == .nothing)
    }

    @Test func onePathKeepsANewlineInsideIt() {
        #expect(parse(bytes("/d/sub"), .onePath) == .paths([bytes("/d/sub")]), "ranger's --choosedir, lf's -last-dir-path")
        #expect(parse(bytes("/d/sub\n"), .onePath) == .paths([bytes("/d/sub")]), "vifm's --choose-dir")
        #expect(parse(bytes("/d/two\nlines\n"), .onePath) == .paths([bytes("/d/two\nlines")]))
        #expect(parse(bytes("\n"), .onePath) == .nothing, "vifm's :cq")
        #expect(parse([], .onePath) == .nothing)
        #expect(parse(bytes("sub\n"), .onePath) == .malformed("not an absolute path"))
    }

    @Test func fzfRecordsComeBackAsTheIndicesWharfGaveThem() {
        #expect(parse(bytes("3\tb.txt\0") + bytes("10\tx\\ny/\0"), .fzfRecords) == .indices([3, 10]))
        #expect(parse(bytes("0\t") + [0xFF, 0xFE] + [0], .fzfRecords) == .indices([0]), "whatever fzf made of the shown name")
        #expect(parse([], .fzfRecords) == .nothing)
        #expect(parse(bytes("b.txt\0"), .fzfRecords) == .malformed("a record without the index Wharf gave it"))
        #expect(parse(bytes("\tb.txt\0"), .fzfRecords) == .malformed("a record without the index Wharf gave it"))
        #expect(parse(bytes("12\0"), .fzfRecords) == .malformed("a record without the index Wharf gave it"))
    }

    @Test func fzfsInputReadsBackThroughItsOutputFormat() {
        let records = FileManagerArguments.fzfRecords(["../", "sub/", "a\\nb.txt", "c.txt"])
        #expect(records == bytes("0\t../\u{0}1\tsub/\u{0}2\ta\\nb.txt\u{0}3\tc.txt\u{0}"))
        // fzf prints the chosen records whole.
        #expect(parse(records, .fzfRecords) == .indices([0, 1, 2, 3]))
    }

    @Test func eachToolHandsBackItsChoiceInItsOwnFormat() {
        #expect(FileManagerKind.vifm.format(for: .files(multiple: true)) == .nulTerminated)
        #expect(FileManagerKind.vifm.format(for: .folder) == .onePath)
        for kind in [FileManagerKind.lf, .nnn, .ranger, .yazi] {
            #expect(kind.format(for: .files(multiple: false)) == .lines, "\(kind)")
        }
        #expect(FileManagerKind.nnn.format(for: .folder) == .lines, "nnn chooses a folder by marking it")
        for kind in [FileManagerKind.lf, .ranger, .yazi] {
            #expect(kind.format(for: .folder) == .onePath, "\(kind)")
            #expect(kind.writesFolderOnEveryQuit(.folder), "\(kind)")
        }
        #expect(!FileManagerKind.vifm.writesFolderOnEveryQuit(.folder), "vifm's :cq cancels")
        #expect(FileManagerKind.fzf.format(for: .folder) == .fzfRecords)
    }
}
