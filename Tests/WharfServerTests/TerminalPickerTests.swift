import Testing
import WharfDialogs
@testable import WharfServer

/// The terminal picker's pieces that need no terminal: its filter (bytes, ASCII case folded, a
/// glob when it holds `*` or `?`), deleting the last character of a name field, and finding the
/// cursor's entry among the visible ones. The picker itself is driven in tmux (Tests/terminal).
@Suite struct TerminalPickerTests {
    func matches(_ pattern: String, _ name: [UInt8]) -> Bool { NameFilter(Array(pattern.utf8)).matches(name) }
    func matches(_ pattern: String, _ name: String) -> Bool { matches(pattern, Array(name.utf8)) }

    @Test func aFilterIsACaseInsensitiveSubstring() {
        #expect(matches("", "anything"))
        #expect(matches("NOTE", "my-notes.md"))
        #expect(matches("s.m", "notes.md"))
        #expect(!matches("notes", "note.md"))
        #expect(!matches("x", ""))
        // Bytes that are not UTF-8 are matched as they are.
        #expect(matches("caf", [0x63, 0x61, 0x66, 0xFF, 0x2E, 0x74]))
        #expect(matches("日本", "旅行の日本語.txt"))
    }

    @Test func aFilterWithStarOrQuestionMarkIsAGlobOverTheWholeName() {
        #expect(matches("*.md", "README.MD"))
        #expect(!matches("*.md", "notes.md.bak"))
        #expect(matches("n?tes*", "notes.txt"))
        #expect(matches("*o*e*", "notes"))
        #expect(!matches("a*z", "abc"))
        #expect(matches("*", ""))
    }

    @Test func backspaceRemovesOneWholeCharacter() {
        #expect(TerminalPicker.droppingLastCharacter(Array("abc".utf8)) == Array("ab".utf8))
        #expect(TerminalPicker.droppingLastCharacter(Array("a日".utf8)) == Array("a".utf8))
        #expect(TerminalPicker.droppingLastCharacter(Array("é".utf8)) == [])
        // A stray byte that is not UTF-8 goes alone.
        #expect(TerminalPicker.droppingLastCharacter([0x61, 0xFF]) == [0x61])
        #expect(TerminalPicker.droppingLastCharacter([0x61, 0x80]) == [0x61])
        #expect(TerminalPicker.droppingLastCharacter([]) == [])
    }

    @Test func aChoiceRowShowsACheckBoxOrTheOptionSelected() {
        let box = DialogChoice(id: "readonly", label: "Read only")
        #expect(TerminalPicker.choiceRow(box, value: "false") == "[ ] Read only")
        #expect(TerminalPicker.choiceRow(box, value: "true") == "[x] Read only")
        let list = DialogChoice(id: "encoding", label: "Encoding",
                                options: [.init(id: "utf8", label: "UTF-8"), .init(id: "latin1", label: "Latin-1")])
        #expect(TerminalPicker.choiceRow(list, value: "latin1") == "Encoding: ‹Latin-1› (2/2)")
        // A label with a control character is shown escaped; no label shows the id.
        #expect(TerminalPicker.choiceRow(DialogChoice(id: "eol", label: "Line\nends"), value: "true") == "[x] Line\\nends")
        #expect(TerminalPicker.choiceRow(DialogChoice(id: "eol", label: ""), value: "false") == "[ ] eol")
    }

    @Test func theCursorsEntryIsFoundAmongTheVisibleOnes() {
        let visible = [2, 5, 9, 40, 41]
        #expect(TerminalPicker.position(of: 9, in: visible) == 2)
        #expect(TerminalPicker.position(of: 41, in: visible) == 4)
        #expect(TerminalPicker.position(of: 2, in: visible) == 0)
        #expect(TerminalPicker.position(of: 6, in: visible) == nil)
        #expect(TerminalPicker.position(of: 50, in: visible) == nil)
        #expect(TerminalPicker.position(of: 0, in: []) == nil)
    }
}
