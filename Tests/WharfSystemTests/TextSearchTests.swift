import Testing
import WharfSystem

@Suite struct TextSearchTests {
    @Test func findsTheFirstOccurrenceAndSlicesAroundIt() throws {
        let text = "<x>café</x><comment>Texte brut — ok</comment><comment>second</comment>"
        let open = try #require(text.firstRange(ofASCII: "<comment>"))
        let close = try #require(text[open.upperBound...].firstRange(ofASCII: "</comment>"))
        #expect(text[open.upperBound ..< close.lowerBound] == "Texte brut — ok")
        #expect(text[open] == "<comment>")
    }

    @Test func searchesSubstringsFromTheirOwnStart() throws {
        let text = "ab-ab-ab"
        let rest = text[text.index(text.startIndex, offsetBy: 1)...]
        let found = try #require(rest.firstRange(ofASCII: "ab"))
        #expect(text.distance(from: text.startIndex, to: found.lowerBound) == 3)
    }

    @Test(arguments: [("qt5ct", "portal", false), ("xdgdesktopportal", "portal", true), ("portal", "portal", true),
                      ("C.UTF-8", "UTF-8", true), ("c.utf8", "utf-8", false), ("", "a", false), ("por", "portal", false)])
    func containsIsByteForByte(_ text: String, _ marker: String, _ expected: Bool) {
        #expect(text.contains(ascii: marker) == expected)
    }

    /// Unicode equivalence is not byte equality: a decomposed é is not found as the composed one.
    @Test func comparesBytesNotCharacters() {
        #expect(!"cafe\u{301}".contains(ascii: "caf\u{e9}"))
        #expect("cafe\u{301}".contains(ascii: "cafe"))
    }
}
