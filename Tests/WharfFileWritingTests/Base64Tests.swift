import Testing
import WharfSystem
import WharfTestSupport

/// Strict RFC 4648 base64, in WharfSystem for the server and the access module; tested here.
struct Base64Tests {
    /// The test vectors of RFC 4648 §10.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func rfcVectorsEncodeAndDecode(_ plain: String, _ encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func everyByteValueAndLengthRoundTrips() {
        for length in 0...67 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes, "length \(length)")
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(Base64.encode([0xFB, 0xFF, 0xBF]) == "+/+/")
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zm9vY", // length not a multiple of four
        "Zm9v\n", "Zm 9v", " Zm9v", "Zm9v\r\nYmFy", // whitespace anywhere
        "Zh==", "Zm9=", // padding whose dropped bits are not zero
        "Z===", "====", "=Zm9", "Zm=v", "Zg==Zm9v", "Zm9vYg=a", // misplaced padding
        "-_8=", "Zm9v*mFy", "Zm9vYmÉ=", // outside the standard alphabet
    ])
    func anythingElseIsRejected(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func largeInputsDecodeToTheSameBytes() {
        let bytes = patternBytes(3_000_001)
        let encoded = Base64.encode(bytes)
        #expect(encoded.utf8.count == (bytes.count + 2) / 3 * 4)
        #expect(Base64.decode(encoded) == bytes)
    }
}
