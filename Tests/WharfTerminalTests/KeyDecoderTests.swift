import Testing
import WharfSystem
@testable import WharfTerminal

/// Bytes from a terminal, decoded to keys with the terminal's own key strings (xterm's, in
/// keypad transmit mode: `\EOA` is up).
@Suite struct KeyDecoderTests {
    let xterm = try! Terminfo.load(term: "xterm", environment: [:])

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func terminfoKeysAndControls() {
        var decoder = KeyDecoder(terminfo: xterm)
        #expect(decoder.feed(bytes("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD")) == [.up, .down, .right, .left])
        #expect(decoder.feed(bytes("\u{1B}[5~\u{1B}[6~\u{1B}[3~")) == [.pageUp, .pageDown, .delete])
        #expect(decoder.feed([0x0D, 0x09, 0x7F, 0x03, 0x15]) == [.enter, .tab, .backspace, .control(0x03), .control(0x15)])
        #expect(decoder.feed(bytes("q/")) == [.character([0x71]), .character([0x2F])])
    }

    @Test func aSequenceSplitAcrossReadsWaitsForItsEnd() {
        var decoder = KeyDecoder(terminfo: xterm)
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.isWaiting)
        #expect(decoder.feed([UInt8(ascii: "O")]).isEmpty)
        #expect(decoder.feed([UInt8(ascii: "A")]) == [.up])
        #expect(!decoder.isWaiting)
    }

    @Test func aLoneEscapeIsEscapeOnceNothingMoreCame() {
        var decoder = KeyDecoder(terminfo: xterm)
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.flush() == [.escape])
        // Escape then a letter at once (Alt-x): Escape, then the letter.
        #expect(decoder.feed([0x1B, UInt8(ascii: "x")]) == [.escape, .character([0x78])])
    }

    @Test func unknownSequencesAreSkippedWhole() {
        var decoder = KeyDecoder(terminfo: xterm)
        // Ctrl-Right in xterm: not a key the picker uses; nothing of it may read as letters.
        #expect(decoder.feed(bytes("\u{1B}[1;5Cq")) == [.unknown(bytes("\u{1B}[1;5C")), .character([0x71])])
    }

    @Test func utf8CharactersComeWholeEvenSplit() {
        var decoder = KeyDecoder(terminfo: xterm)
        let wide = bytes("日")
        #expect(decoder.feed(Array(wide.prefix(2))).isEmpty)
        #expect(decoder.feed(Array(wide.suffix(1))) == [.character(wide)])
        #expect(decoder.feed([0xFF, 0x61]) == [.unknown([0xFF]), .character([0x61])])
    }
}

@Suite struct DisplayWidthTests {
    @Test func wideAndCombiningCharactersTakeTheirColumns() {
        #expect(DisplayWidth.columns("abc") == 3)
        #expect(DisplayWidth.columns("日本語") == 6)
        #expect(DisplayWidth.columns("e\u{301}te\u{301}") == 3)  // é as e and U+0301: été
        #expect(DisplayWidth.columns("😀") == 2)
    }

    @Test func fittingCutsWholeCharactersAndSaysSo() {
        #expect(DisplayWidth.fit("abcdef", to: 10) == ("abcdef", 6))
        let cut = DisplayWidth.fit("日本語です", to: 6)
        #expect(cut.text == "日本…" && cut.columns == 5)
        #expect(DisplayWidth.fit("abcdef", to: 4) == ("abc…", 4))
        #expect(DisplayWidth.fit("x", to: 0) == ("", 0))
    }

    @Test func theSystemWidthTableIsUsed() {
        #expect(CharacterWidth.widths(of: [0x61, 0x65E5, 0x301, 0x07]) == [1, 2, 0, -1])
    }
}

@Suite struct TerminalTextTests {
    @Test func namesThatAreNotUTF8OrHoldControlsAreShownEscaped() {
        #expect(TerminalText.escape(bytes: [0x61, 0xFF, 0x62]) == "a\\xFFb")
        #expect(TerminalText.escape(bytes: Array("a\tb\nc\u{1B}[31m".utf8)) == "a\\tb\\nc\\x1B[31m")
        #expect(TerminalText.escape("\u{202E}evil") == "\\u{202E}evil")
        #expect(TerminalText.escape("日本.txt") == "日本.txt")
        // Reversible: two different names never print alike.
        #expect(TerminalText.escape(bytes: [0x5C, 0x78, 0x46, 0x46]) != TerminalText.escape(bytes: [0xFF]))
    }
}

@Suite struct FrameTests {
    @Test func framesAreDrawnWithTheTerminalsOwnStrings() throws {
        let xterm = try Terminfo.load(term: "xterm", environment: [:])
        var frame = Frame(rows: 2, columns: 8)
        frame.set(0, [Frame.Span("日本語です", .dim)])
        frame.set(1, [Frame.Span("ab"), Frame.Span("cd", .reverse)])
        #expect(frame.text == ["日本語…", "abcd"])
        let bytes = String(decoding: frame.render(with: xterm), as: UTF8.self)
        #expect(bytes.contains("\u{1B}[1;1H\u{1B}[2m日本語…"))
        #expect(bytes.contains("\u{1B}[2;1Hab\u{1B}[7mcd"))
        #expect(bytes.contains("\u{1B}[K"))
    }

    /// Over a screen showing the frame before, only the rows that changed are written.
    @Test func aFrameOverThePreviousOneWritesOnlyTheRowsThatChanged() throws {
        let xterm = try Terminfo.load(term: "xterm", environment: [:])
        var before = Frame(rows: 3, columns: 10)
        for row in 0..<3 { before.set(row, [Frame.Span("row \(row)")]) }
        var after = before
        after.set(1, [Frame.Span("changed", .reverse)])
        let shown = before.renderedRows(with: xterm)
        let bytes = String(decoding: after.render(with: xterm, rows: after.renderedRows(with: xterm), over: shown), as: UTF8.self)
        #expect(bytes.contains("\u{1B}[2;1H\u{1B}[7mchanged"))
        #expect(!bytes.contains("row 0") && !bytes.contains("row 2"))
        let whole = String(decoding: after.render(with: xterm, rows: after.renderedRows(with: xterm), over: nil), as: UTF8.self)
        #expect(whole.contains("row 0") && whole.contains("changed") && whole.contains("row 2"))
        #expect(whole == String(decoding: after.render(with: xterm), as: UTF8.self))
    }
}
