import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

@Suite struct RandomTokenTests {
    @Test func theCheckCharacterCatchesEverySingleSubstitution() throws {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
        var accepted: [String] = []
        for _ in 0..<20 {
            let token = try RandomTokens.bookmark()
            #expect(RandomTokens.isWellFormedBookmark(token))
            var bytes = Array(token.utf8)
            for position in RandomTokens.bookmarkPrefix.utf8.count..<bytes.count {
                let original = bytes[position]
                for replacement in alphabet where replacement != original {
                    bytes[position] = replacement
                    let edited = String(decoding: bytes, as: UTF8.self)
                    if RandomTokens.isWellFormedBookmark(edited) { accepted.append(edited) }
                }
                bytes[position] = original
            }
        }
        #expect(accepted.isEmpty, "edited tokens that passed the check: \(accepted.prefix(5))")
    }

    @Test func tokensDoNotRepeat() throws {
        var seen = Set<String>()
        for _ in 0..<1000 {
            #expect(seen.insert(try RandomTokens.bookmark()).inserted)
            #expect(seen.insert(try RandomTokens.accessId()).inserted)
        }
    }
}
