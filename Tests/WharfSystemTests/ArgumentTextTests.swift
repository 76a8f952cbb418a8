import Testing
import WharfSystem

/// Arguments keep their bytes through the text the parser reads (`ArgumentText`).
@Suite struct ArgumentTextTests {
    @Test func validUTF8StaysTheSameText() {
        for text in ["--state-dir", "café", "cafe\u{301}", "日本語/ファイル.txt", "🙂", "\u{FFFD}", "\u{10FEFF}", ""] {
            #expect(ArgumentText.text(Array(text.utf8)) == text)
            #expect(ArgumentText.bytes(text) == Array(text.utf8))
        }
    }

    @Test func bytesThatAreNotUTF8ComeBackExactly() {
        let cases: [[UInt8]] = [
            [0xFF], Array("name".utf8) + [0xFF] + Array(".txt".utf8),
            [0xC3], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80],   // truncated, bad continuation, a surrogate
            [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80],                     // overlong, past U+10FFFF
            Array("\u{10FF41}".utf8),                                   // a character of the escape range itself
            Array("\u{10FF41}".utf8) + [0x41],
        ]
        for bytes in cases {
            #expect(ArgumentText.bytes(ArgumentText.text(bytes)) == bytes, "\(bytes)")
        }
        // Lossy decoding would make these two one name; as argument text they stay two.
        #expect(ArgumentText.text([0xFF]) != ArgumentText.text(Array("\u{FFFD}".utf8)))
        #expect(ArgumentText.text(Array("\u{10FF41}".utf8)) != ArgumentText.text([0x41]))
    }

    @Test func anyByteStringRoundTrips() {
        var generator = SystemRandomNumberGenerator()
        // Bytes weighted towards the ones UTF-8 treats specially.
        let interesting: [UInt8] = [0x00, 0x2F, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...12, using: &generator)
            let bytes = (0..<count).map { _ in
                Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            #expect(ArgumentText.bytes(ArgumentText.text(bytes)) == bytes, "\(bytes)")
        }
    }
}
