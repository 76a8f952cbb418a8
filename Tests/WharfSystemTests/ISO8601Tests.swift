import Testing
import WharfSystem

@Suite struct ISO8601Dates {
    @Test func zonesAndFractionsAreHonoured() {
        #expect(ISO8601.secondsSinceEpoch("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601.secondsSinceEpoch("2026-11-29T15:51:00Z") == 1_795_967_460)
        #expect(ISO8601.secondsSinceEpoch("2026-11-29T16:51:00+01:00") == 1_795_967_460)
        #expect(ISO8601.secondsSinceEpoch("1970-01-01T00:00:00.5Z") == 0.5)
    }

    @Test(arguments: ["2026-11-29", "2026-11-29T15:51:00", "2026-13-01T00:00:00Z", "yesterday", "2026-11-29T15:51:00Zjunk", ""])
    func incompleteOrInvalidDatesAreRefused(text: String) {
        #expect(ISO8601.secondsSinceEpoch(text) == nil)
    }

    @Test func formattingRoundTrips() {
        #expect(ISO8601.format(1_795_967_460) == "2026-11-29T15:51:00Z")
        #expect(ISO8601.secondsSinceEpoch(ISO8601.format(1_795_967_460)) == 1_795_967_460)
    }
}
