import Testing
import WharfSystem

@Suite struct Base32Tests {
    /// RFC 4648 §10's test vectors, in lowercase and without the padding.
    @Test(arguments: [("", ""), ("f", "my"), ("fo", "mzxq"), ("foo", "mzxw6"), ("foob", "mzxw6yq"),
                      ("fooba", "mzxw6ytb"), ("foobar", "mzxw6ytboi")])
    func rfcVectorsEncodeAndDecode(_ plain: String, _ encoded: String) {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(Base32.decode(Array(encoded.utf8)) == Array(plain.utf8))
    }

    @Test func everyByteValueRoundTrips() {
        let bytes = (0...255).map(UInt8.init)
        let encoded = Base32.encode(bytes)
        #expect(encoded.utf8.allSatisfy { Base32.value(of: $0) != nil })
        #expect(Base32.decode(Array(encoded.utf8)) == bytes)
    }

    @Test func lettersAndValuesAreInverse() {
        #expect(String(decoding: (0..<32).map(Base32.letter), as: UTF8.self) == "abcdefghijklmnopqrstuvwxyz234567")
        for value in 0..<32 { #expect(Base32.value(of: Base32.letter(value)) == value) }
        for outside in ["A", "1", "8", "=", " "] { #expect(Base32.value(of: UInt8(ascii: Unicode.Scalar(outside)!)) == nil) }
        #expect(Base32.decode(Array("mzxw6YTB".utf8)) == nil, "only the lowercase alphabet")
    }
}
