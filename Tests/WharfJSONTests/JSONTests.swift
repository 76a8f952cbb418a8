import Testing
import WharfJSON

@Suite struct JSONParsing {
    @Test func integersStayExactBeyondDoublePrecision() throws {
        let value = try JSON.parse("9007199254740993")
        #expect(value == .int(9_007_199_254_740_993))
        #expect(value.jsonText == "9007199254740993")
    }

    @Test func parsingBytesTheCallerKeepsLeavesThemIntact() throws {
        // parse takes its bytes over and lets them go early; a caller's own copy must not care.
        let text: [UInt8] = Array(#"{"big":"\#(String(repeating: "ab", count: 100_000))"}"#.utf8)
        let kept = text
        let value = try JSON.parse(text)
        #expect(kept == text && kept.count == 200_010)
        #expect(value["big"]?.stringValue?.utf8.count == 200_000)
        // And a parse error still says where, whoever owns the bytes.
        #expect(throws: JSONParseError.self) { try JSON.parse(Array(#"{"a":}"#.utf8)) }
    }

    @Test func int64ExtremesRoundTrip() throws {
        #expect(try JSON.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSON.parse("9223372036854775807") == .int(Int64.max))
    }

    @Test func integersBeyondInt64AreRejectedNotRounded() {
        #expect(throws: JSONParseError.self) { try JSON.parse("9223372036854775808") }
    }

    @Test func numbersWithFractionOrExponentAreDoubles() throws {
        #expect(try JSON.parse("1.5") == .double(1.5))
        #expect(try JSON.parse("1e2") == .double(100))
        #expect(try JSON.parse("1") == .int(1))
    }

    @Test func stringsWithEmbeddedNulRoundTrip() throws {
        let value = try JSON.parse(#""a\u0000b""#)
        #expect(value == .string("a\u{0}b"))
        #expect(value.stringValue?.utf8.count == 3)
        #expect(value.jsonText == #""a\u0000b""#)
    }

    @Test func objectKeyOrderIsPreservedOnOutput() throws {
        let text = #"{"zeta":1,"alpha":2,"mid":{"b":1,"a":2}}"#
        #expect(try JSON.parse(text).jsonText == text)
        let built: JSON = ["jsonrpc": "2.0", "id": 1, "result": ["z": 1, "a": 2]]
        #expect(built.jsonText == #"{"jsonrpc":"2.0","id":1,"result":{"z":1,"a":2}}"#)
    }

    @Test func objectEqualityIgnoresKeyOrder() throws {
        #expect(try JSON.parse(#"{"a":1,"b":2}"#) == JSON.parse(#"{"b":2,"a":1}"#))
        #expect(try JSON.parse(#"{"a":1,"b":2}"#) != JSON.parse(#"{"a":1,"b":3}"#))
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        let value = try JSON.parse(#"{"a":1,"a":2}"#)
        #expect(value["a"] == .int(2))
        #expect(value.objectValue?.count == 1)
    }

    @Test func unicodeAndEscapesRoundTrip() throws {
        let value = try JSON.parse(#""caf\u00e9 \ud83d\ude00 \"q\" \\ /""#)
        #expect(value == .string("café 😀 \"q\" \\ /"))
        #expect(try JSON.parse(value.jsonText) == value)
    }

    @Test func invalidUTF8IsAParseError() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: JSONParseError.self) { try JSON.parse(bytes) }
    }

    @Test func loneSurrogatesAreAParseError() {
        #expect(throws: JSONParseError.self) { try JSON.parse(#""\ud800""#) }
        #expect(throws: JSONParseError.self) { try JSON.parse(#""\udc00x""#) }
    }

    @Test func nestingBeyondTheLimitIsAParseErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSON.parse(deep) }
    }

    @Test func scalarsAreValidTopLevelValues() throws {
        #expect(try JSON.parse("null") == .null)
        #expect(try JSON.parse("true") == .bool(true))
        #expect(try JSON.parse(#""x""#) == .string("x"))
    }

    @Test func trailingGarbageAndTruncationAreParseErrors() {
        #expect(throws: JSONParseError.self) { try JSON.parse("{} x") }
        #expect(throws: JSONParseError.self) { try JSON.parse(#"{"a":"#) }
        #expect(throws: JSONParseError.self) { try JSON.parse("") }
    }

    @Test func parseErrorsSayWhere() {
        do {
            _ = try JSON.parse("{\n  \"a\": ]")
            Issue.record("expected a parse error")
        } catch {
            #expect(error.line == 2)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(JSON.array([.double(.nan), .double(.infinity)]).jsonText == "[null,null]")
    }

    @Test func emptyContainersAndCompactOutput() throws {
        #expect(try JSON.parse(" { } ").jsonText == "{}")
        #expect(try JSON.parse(" [ 1 , 2 ] ").jsonText == "[1,2]")
    }
}

/// The encoder is Wharf's own (jansson only parses): its text must be what jansson reads back
/// as the same value, and what jansson itself wrote where the protocol's tests compare text.
@Suite struct JSONEncoding {
    @Test func stringsEscapeQuotesBackslashesAndEveryControlCharacter() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let value = JSON.string("q\"b\\s/ é😀\u{7F}" + controls)
        let text = value.jsonText
        #expect(text.hasPrefix(#""q\"b\\s/ é😀"#))
        #expect(text.hasSuffix(#"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000B\f\r\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F""#))
        #expect(!text.utf8.contains(where: { $0 < 0x20 }), "a raw control character was written")
        #expect(try JSON.parse(text) == value)
    }

    @Test func integersAtBothEndsAndDoublesReadBackExactly() throws {
        let integers: [Int64] = [0, 1, -1, 42, Int64.max, Int64.min, 1_000_000_007]
        for integer in integers {
            #expect(JSON.int(integer).jsonText == String(integer))
        }
        let doubles: [Double] = [0.0, -0.0, 1.0, 0.1, -2.5, 1e-5, 1e16, 1.7976931348623157e308, .leastNonzeroMagnitude, 123456.789]
        for double in doubles {
            let text = JSON.double(double).jsonText
            #expect(text.contains(".") || text.contains("e"), "\(text) would read back as an integer")
            let back = try JSON.parse(text)
            #expect(back == .double(double), "\(double) was written \(text), read back \(back)")
            #expect(back.numberValue?.sign == double.sign)
        }
    }

    @Test func nestedValuesKeepTheirOrderAndReadBackEqual() throws {
        let value: JSON = [
            "jsonrpc": "2.0", "id": 7,
            "result": ["z\n": [1, 2.5, nil, true, false, [], [:]], "a": ["": "", "k\"": ["deep": [[[]]]]]],
        ]
        let text = value.jsonText
        #expect(text == #"{"jsonrpc":"2.0","id":7,"result":{"z\n":[1,2.5,null,true,false,[],{}],"a":{"":"","k\"":{"deep":[[[]]]}}}}"#)
        #expect(try JSON.parse(text) == value)
        var appended: [UInt8] = Array("prefix:".utf8)
        value.serialize(into: &appended)
        #expect(appended == Array("prefix:".utf8) + Array(text.utf8))
    }
}

/// Counting a text's values before parsing it (`JSON.holdsMoreValues(than:in:)`).
@Suite struct ValueCountTests {
    func holdsMore(_ text: String, than limit: Int) -> Bool {
        Array(text.utf8).withUnsafeBytes { JSON.holdsMoreValues(than: limit, in: $0) }
    }

    @Test func containersAndCommasOutsideStringsCount() {
        #expect(!holdsMore("[[],[],[]]", than: 6))  // four containers, two commas
        #expect(holdsMore("[[],[],[]]", than: 5))
        #expect(!holdsMore(#"{"a":1,"b":[2,3]}"#, than: 4))
        #expect(holdsMore(#"{"a":1,"b":[2,3]}"#, than: 3))
    }

    @Test func whatIsInsideAStringIsText() {
        #expect(!holdsMore(#"["[,{,[,{,",1]"#, than: 2))
        // An escaped quote does not end the string; an escaped backslash before a quote does.
        #expect(!holdsMore(#"["a\",[,[,[",1]"#, than: 2))
        #expect(holdsMore(#"["a\\",[],[],1]"#, than: 4))
    }
}
