import Testing
@testable import WharfJSONRPC

/// The header Wharf writes in front of every LSP-framed message, built without string
/// interpolation (it is on every message's path).
@Suite struct FrameHeader {
    @Test(arguments: [0, 1, 9, 10, 52, 99, 100, 999, 1000, 12_345, 67_108_864, 1_000_000_000_000, Int.max])
    func isContentLengthInDecimalThenABlankLine(length: Int) {
        #expect(FrameDecoder.header(forBodyLength: length) == Array("Content-Length: \(length)\r\n\r\n".utf8))
    }
}
