import Testing
@testable import WharfJSONRPC

/// Feeds `chunks` to a decoder and collects every event.
private func decode(_ chunks: [[UInt8]], mode: FramingMode = .lsp, max: Int = 1 << 20) -> (events: [FrameEvent], decoder: FrameDecoder) {
    var decoder = FrameDecoder(mode: mode, maxMessageBytes: max)
    var events: [FrameEvent] = []
    for chunk in chunks {
        chunk.withUnsafeBytes { decoder.append($0) }
        while let event = decoder.next() { events.append(event) }
    }
    return (events, decoder)
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
private func frame(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

@Suite struct LSPFraming {
    @Test func oneFrame() {
        #expect(decode([bytes(frame("{}"))]).events == [.message(bytes("{}"))])
    }

    @Test func framesSplitAtEveryByteBoundary() {
        let stream = bytes(frame(#"{"a":1}"#) + frame(#"{"b":2}"#))
        for split in 1..<stream.count {
            let events = decode([Array(stream[..<split]), Array(stream[split...])]).events
            #expect(events == [.message(bytes(#"{"a":1}"#)), .message(bytes(#"{"b":2}"#))], "split at \(split)")
        }
    }

    @Test func framesDeliveredOneByteAtATime() {
        let stream = bytes(frame("[1]") + frame("[2]"))
        let events = decode(stream.map { [$0] }).events
        #expect(events == [.message(bytes("[1]")), .message(bytes("[2]"))])
    }

    @Test func manyFramesMergedInOneRead() {
        let stream = bytes((0..<100).map { frame("[\($0)]") }.joined())
        let events = decode([stream]).events
        #expect(events.count == 100)
        #expect(events.last == .message(bytes("[99]")))
    }

    @Test func headerNamesAreCaseInsensitiveAndSpacingIsTolerated() {
        let stream = bytes("content-LENGTH:2  \r\n\r\n{}" + "CONTENT-LENGTH:   2\r\n\r\n[]")
        #expect(decode([stream]).events == [.message(bytes("{}")), .message(bytes("[]"))])
    }

    @Test func contentTypeAndUnknownHeadersAreIgnored() {
        let stream = bytes("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Custom: 1\r\nContent-Length: 2\r\n\r\n{}")
        #expect(decode([stream]).events == [.message(bytes("{}"))])
    }

    @Test func aMissingContentLengthSkipsToTheNextFrame() {
        let stream = bytes("Content-Type: x\r\n\r\n{\"lost\":1}" + frame("{}"))
        let events = decode([stream]).events
        #expect(events.contains(.message(bytes("{}"))))
        #expect(events.filter { if case .message = $0 { true } else { false } }.count == 1)
        #expect(events.contains { if case .skipped = $0 { true } else { false } })
    }

    @Test func aBadContentLengthSkipsToTheNextFrame() {
        for bad in ["abc", "-5", "", "1.5", "99999999999999999999"] {
            let stream = bytes("Content-Length: \(bad)\r\n\r\n{}" + frame("[7]"))
            let events = decode([stream]).events
            #expect(events.last == .message(bytes("[7]")), "Content-Length: \(bad)")
            #expect(events.first.map { if case .skipped = $0 { true } else { false } } == true)
        }
    }

    @Test func garbageBeforeAHeaderIsSkipped() {
        let stream = bytes("garbage!!" + frame("{}"))
        let events = decode([stream]).events
        #expect(events.last == .message(bytes("{}")))
    }

    @Test func anOversizedBodyIsDiscardedWithoutBuffering() {
        let body = String(repeating: "x", count: 10_000)
        var chunks = [bytes("Content-Length: 10000\r\n\r\n")]
        chunks += Array(bytes(body)).chunked(1000)
        chunks.append(bytes(frame("{}")))
        var decoder = FrameDecoder(mode: .lsp, maxMessageBytes: 100)
        var events: [FrameEvent] = []
        var largestBuffer = 0
        for chunk in chunks {
            chunk.withUnsafeBytes { decoder.append($0) }
            largestBuffer = max(largestBuffer, decoder.bufferedBytes)
            while let event = decoder.next() { events.append(event) }
        }
        #expect(events == [.oversized(length: 10_000), .message(bytes("{}"))])
        #expect(largestBuffer <= 1_000, "held \(largestBuffer) bytes of a body it should have discarded")
        #expect(!decoder.hasPartialFrame)
    }

    @Test func aBodyLargerThanAnyReadArrivesWholeAndExact() {
        // 3 MiB of every byte value, well past the read buffer (256 KiB) and a pipe's (1 MiB).
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) }
        let stream = bytes("Content-Length: \(body.count)\r\n\r\n") + body + bytes(frame("[1]"))
        for chunkSize in [1 << 16, 256 * 1024 + 7, 1 << 20] {
            let events = decode(stream.chunked(chunkSize), max: 4 << 20).events
            #expect(events == [.message(body), .message(bytes("[1]"))], "read \(chunkSize) bytes at a time")
        }
    }

    @Test func aFrameEndingMidChunkLeavesTheRestForTheNext() {
        // The header and the start of a large body in one read, its end and a whole frame in
        // the next: the bytes after the body belong to the next frame, not to the body.
        let body = Array(repeating: UInt8(ascii: "x"), count: 100_000)
        let stream = bytes("Content-Length: 100000\r\n\r\n") + body + bytes(frame("{}") + frame("[2]"))
        let split = 60_000
        let (events, decoder) = decode([Array(stream[..<split]), Array(stream[split...])], max: 200_000)
        #expect(events == [.message(body), .message(bytes("{}")), .message(bytes("[2]"))])
        #expect(!decoder.hasPartialFrame)
        #expect(decoder.bufferedBytes == 0, "nothing kept once every frame is out")
    }

    @Test func aBodyStillArrivingIsAPartialFrameHeldOnce() {
        var decoder = FrameDecoder(mode: .lsp, maxMessageBytes: 1 << 20)
        bytes("Content-Length: 500000\r\n\r\n").withUnsafeBytes { decoder.append($0) }
        #expect(decoder.next() == nil)
        for _ in 0..<4 {
            Array(repeating: UInt8(ascii: "y"), count: 100_000).withUnsafeBytes { decoder.append($0) }
            #expect(decoder.next() == nil)
        }
        #expect(decoder.hasPartialFrame)
        #expect(decoder.bufferedBytes == 400_000, "the body so far, once")
    }

    @Test func aTruncatedBodyIsAPartialFrame() {
        #expect(decode([bytes("Content-Length: 10\r\n\r\n{}")]).decoder.hasPartialFrame)
        #expect(decode([bytes("Content-Len")]).decoder.hasPartialFrame)
        #expect(!decode([bytes(frame("{}") + "\r\n")]).decoder.hasPartialFrame)
    }
}

@Suite struct NDJSONFraming {
    @Test func linesAreMessagesAndBlankLinesAreSkipped() {
        let events = decode([bytes("{\"a\":1}\n\n  \r\n[2]\r\n")], mode: .ndjson).events
        #expect(events == [.message(bytes("{\"a\":1}")), .message(bytes("[2]"))])
    }

    @Test func aLastLineWithoutNewlineIsDeliveredAtEndOfInput() {
        var (events, decoder) = decode([bytes("{}\n[1]")], mode: .ndjson)
        #expect(events == [.message(bytes("{}"))])
        #expect(decoder.finish() == .message(bytes("[1]")))
    }

    @Test func linesSplitAtEveryByteBoundary() {
        let stream = bytes("{\"a\":1}\r\n\n  \r\n[2,3]\n{}\r\n")
        let expected: [FrameEvent] = [.message(bytes("{\"a\":1}")), .message(bytes("[2,3]")), .message(bytes("{}"))]
        for split in 1..<stream.count {
            let events = decode([Array(stream[..<split]), Array(stream[split...])], mode: .ndjson).events
            #expect(events == expected, "split at \(split)")
        }
        #expect(decode(stream.map { [$0] }, mode: .ndjson).events == expected, "a byte at a time")
    }

    /// A line that arrives in many reads is searched for its newline once in all: the bytes the
    /// search examines stay within the bytes received. It had searched the whole line again
    /// after every read, so a line cost the square of its length (a 16 MB line about 29 s of
    /// CPU in the daemon, where LSP framing took 0.5 s), and each byte trickled after a long
    /// line cost another search of all of it.
    @Test func aLineInManyReadsIsSearchedOnce() {
        var decoder = FrameDecoder(mode: .ndjson, maxMessageBytes: 1 << 20)
        var received = 0
        var events: [FrameEvent] = []
        func feed(_ chunk: [UInt8]) {
            chunk.withUnsafeBytes { decoder.append($0) }
            received += chunk.count
            while let event = decoder.next() { events.append(event) }
        }
        let filler = Array(repeating: UInt8(ascii: "a"), count: 256 * 1024)
        // 256 KiB in reads of 1 KiB, then 1,000 bytes one at a time, then the line's end and
        // a short line after it.
        for chunk in (bytes("[\"") + filler).chunked(1024) { feed(chunk) }
        for _ in 0..<1_000 { feed([UInt8(ascii: "b")]) }
        feed(bytes("\"]\n[1]\n"))
        let line = bytes("[\"") + filler + Array(repeating: UInt8(ascii: "b"), count: 1_000) + bytes("\"]")
        #expect(events == [.message(line), .message(bytes("[1]"))])
        #expect(decoder.newlineSearchBytes <= received,
                "searched \(decoder.newlineSearchBytes) bytes for newlines in \(received) bytes received")
    }

    @Test func anOversizedLineIsDiscardedUpToItsNewline() {
        let long = String(repeating: "y", count: 5_000)
        let chunks = Array(bytes("{\"big\":\"\(long)\"}\n{}\n")).chunked(700)
        let events = decode(chunks, mode: .ndjson, max: 1_000).events
        #expect(events.count == 2)
        #expect(events.first.map { if case .oversized = $0 { true } else { false } } == true)
        #expect(events.last == .message(bytes("{}")))
    }
}

@Suite struct AutomaticFraming {
    /// Blank bytes before the framing is known are not kept: they were, and searched again at
    /// every read, so a peer sending spaces held memory and CPU growing with their square.
    @Test func blankBytesBeforeTheFirstMessageAreNotKept() {
        var decoder = FrameDecoder(mode: .auto, maxMessageBytes: 1 << 20)
        let blanks = Array(repeating: UInt8(ascii: " "), count: 1024) + [0x0A, 0x0D, 0x09]
        for _ in 0..<256 {
            blanks.withUnsafeBytes { decoder.append($0) }
            #expect(decoder.next() == nil)
        }
        #expect(decoder.bufferedBytes == 0, "\(decoder.bufferedBytes) blank bytes kept")
        bytes("{\"a\":1}\n").withUnsafeBytes { decoder.append($0) }
        #expect(decoder.next() == .message(bytes("{\"a\":1}")))
        #expect(decoder.framing == .ndjson)
    }

    @Test func anOpeningBraceOrBracketMeansNDJSON() {
        var decoder = decode([bytes("  \n{}\n")], mode: .auto).decoder
        #expect(decoder.framing == .ndjson)
        decoder = decode([bytes("[1]\n")], mode: .auto).decoder
        #expect(decoder.framing == .ndjson)
    }

    @Test func anythingElseMeansLSP() {
        let (events, decoder) = decode([bytes(frame("{}"))], mode: .auto)
        #expect(decoder.framing == .lsp)
        #expect(events == [.message(bytes("{}"))])
    }

    @Test func undecidedUntilANonBlankByteArrives() {
        #expect(decode([bytes(" \r\n\t")], mode: .auto).decoder.framing == nil)
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

/// A message thrown away unfinished (``ByteBudget``): the rest of it is skipped as it arrives,
/// and the next message is read whole.
@Suite struct AbandonedMessages {
    func events(_ decoder: inout FrameDecoder, _ text: String) -> [FrameEvent] {
        bytes(text).withUnsafeBytes { decoder.append($0) }
        var events: [FrameEvent] = []
        while let event = decoder.next() { events.append(event) }
        return events
    }

    @Test func anLSPBodyAbandonedMidwayIsSkippedToItsEnd() {
        var decoder = FrameDecoder(mode: .lsp, maxMessageBytes: 1 << 20)
        #expect(events(&decoder, "Content-Length: 9\r\n\r\n[1,2") == [])
        decoder.abandonPartialMessage()
        #expect(decoder.bufferedBytes == 0)
        #expect(events(&decoder, ",3,4]" + frame("[5]")) == [.message(bytes("[5]"))])
    }

    @Test func anNDJSONLineAbandonedMidwayIsSkippedToItsNewline() {
        var decoder = FrameDecoder(mode: .ndjson, maxMessageBytes: 1 << 20)
        #expect(events(&decoder, "[1]\n[2,") == [.message(bytes("[1]"))])
        decoder.abandonPartialMessage()
        #expect(decoder.bufferedBytes == 0)
        #expect(events(&decoder, "3]\n[4]\n") == [.message(bytes("[4]"))])
    }
}
