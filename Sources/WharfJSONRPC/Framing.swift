import WharfJSON
import WharfSystem

/// How messages are delimited on the byte stream.
public enum Framing: String, Sendable, CaseIterable {
    /// The LSP base protocol: `Content-Length: N\r\n\r\n` then N bytes of JSON.
    case lsp
    /// One JSON text per line, for simple harnesses (`{"jsonrpc":…}\n`).
    case ndjson
}

/// What the reader was told to expect: one framing, or `auto` (decide from the first
/// non-blank byte: `{` or `[` means NDJSON, anything else LSP).
public enum FramingMode: String, Sendable, CaseIterable {
    case auto, lsp, ndjson
}

/// One thing the decoder found in the stream.
package enum FrameEvent: Equatable {
    /// A complete message body.
    case message([UInt8])
    /// A message longer than the limit; its bytes were (or are being) discarded unread.
    case oversized(length: Int)
    /// Bytes that are not a frame were skipped; the string says what was wrong.
    case skipped(String)
}

/// Splits a byte stream into message bodies, for either framing.
///
/// A pure state machine over appended bytes, so split and merged frames, garbage and oversized
/// bodies can be tested without any I/O. Oversized bodies are counted down as they arrive and
/// never buffered.
package struct FrameDecoder {
    package private(set) var framing: Framing?
    let maxMessageBytes: Int
    /// A header block larger than this is garbage, not a header.
    static let maxHeaderBytes = 16 * 1024

    private var buffer: [UInt8] = []
    private var start = 0
    /// LSP: the body length of the frame whose header has been read, while its body arrives.
    private var pendingBody: Int?
    /// LSP: the part of that body that has arrived, in a buffer reserved once at its full
    /// length. A large body (a base64 document of tens of MiB) is read straight into it: no
    /// growing `buffer` in steps (a copy and fresh pages at every step), and no copy out of
    /// `buffer` once it is complete.
    private var body: [UInt8] = []
    /// Bytes still to throw away from an oversized message.
    private var discarding = 0
    /// NDJSON: throwing away the rest of an oversized line.
    private var discardingLine = false
    /// NDJSON: how many bytes after `start` are already known to hold no newline. The next
    /// search starts after them, so a line arriving in many reads is scanned once in all,
    /// not once per read (a 16 MB line had cost about 29 s of CPU, and each byte trickled
    /// after it another 16 MB of scanning).
    private var scannedWithoutNewline = 0
    /// NDJSON: bytes the newline search has examined, in all (for tests that check the
    /// search is linear in what arrives).
    package private(set) var newlineSearchBytes = 0

    package init(mode: FramingMode, maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
        switch mode {
        case .auto: framing = nil
        case .lsp: framing = .lsp
        case .ndjson: framing = .ndjson
        }
    }

    private var available: Int { buffer.count - start }

    /// Bytes held in memory right now (for tests that check oversized bodies are not kept).
    package var bufferedBytes: Int { available + body.count }

    /// Adds bytes read from the stream.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var bytes = bytes[...]
        if discarding > 0 {
            let dropped = min(discarding, bytes.count)
            discarding -= dropped
            bytes = bytes.dropFirst(dropped)
        }
        if discardingLine {
            guard let newline = bytes.firstIndex(of: 0x0A) else { return }
            discardingLine = false
            bytes = bytes[(newline + 1)...]
        }
        if let length = pendingBody, body.count < length {
            let taken = min(length - body.count, bytes.count)
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(taken)))
            bytes = bytes.dropFirst(taken)
        }
        guard !bytes.isEmpty else { return }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes))
    }

    /// The next event, or nil when more bytes are needed.
    package mutating func next() -> FrameEvent? {
        if framing == nil {
            // Blank bytes before the first message mean nothing: dropped as they are seen, not
            // kept and searched again at every read (24 MiB of spaces had cost 75 s of CPU).
            guard let first = firstNonBlank() else {
                start = buffer.count
                return nil
            }
            start = first
            framing = (buffer[first] == UInt8(ascii: "{") || buffer[first] == UInt8(ascii: "[")) ? .ndjson : .lsp
        }
        switch framing! {
        case .lsp: return nextLSP()
        case .ndjson: return nextLine()
        }
    }

    /// Throws away the message that has begun to arrive: what of it is held now, and the rest
    /// as it arrives, as with an oversized one (``ByteBudget``). An unfinished LSP header is
    /// kept, so that the frames after it are still found.
    package mutating func abandonPartialMessage() {
        if let length = pendingBody {
            discarding += length - body.count
            pendingBody = nil
            body = []
        } else if framing == .ndjson, firstNonBlank() != nil {
            buffer = []
            start = 0
            scannedWithoutNewline = 0
            discardingLine = true
        }
    }

    /// Whether bytes of an unfinished frame remain (a truncated message at end of input).
    /// Trailing blank bytes do not count.
    package var hasPartialFrame: Bool {
        if pendingBody != nil || discarding > 0 { return true }
        return firstNonBlank() != nil
    }

    /// What is left over, for the end-of-input case of NDJSON: a last line without newline.
    package mutating func finish() -> FrameEvent? {
        guard framing == .ndjson, firstNonBlank() != nil else { return nil }
        buffer.append(0x0A)
        return nextLine()
    }

    private func firstNonBlank() -> Int? {
        var index = start
        while index < buffer.count {
            switch buffer[index] {
            case 0x20, 0x09, 0x0D, 0x0A: index += 1
            default: return index
            }
        }
        return nil
    }

    // MARK: LSP base protocol

    private mutating func nextLSP() -> FrameEvent? {
        if let length = pendingBody {
            guard body.count == length else { return nil }
            pendingBody = nil
            defer { body = [] }
            return .message(body)
        }
        // Blank bytes between frames are tolerated.
        guard let first = firstNonBlank() else {
            start = buffer.count
            return nil
        }
        start = first
        guard let end = headerEnd() else {
            if available > Self.maxHeaderBytes {
                let skipped = available - 3
                start += skipped
                return .skipped("\(skipped) bytes without a header terminator")
            }
            return nil
        }
        let blockEnd = end + 4
        switch parseHeader(start..<end) {
        case .length(let length):
            start = blockEnd
            if length > maxMessageBytes {
                let inBuffer = min(available, length)
                start += inBuffer
                discarding = length - inBuffer
                return .oversized(length: length)
            }
            if available >= length {
                // The whole body is here already (the usual case for small messages).
                let message = Array(buffer[start..<(start + length)])
                start += length
                return .message(message)
            }
            pendingBody = length
            // Reserved at its full length once (with huge pages where the kernel offers them:
            // far fewer page faults for a body of tens of MiB), then filled as bytes arrive.
            body = [UInt8](unsafeUninitializedCapacity: length) { space, initialized in
                MemoryAdvice.preferHugePages(UnsafeMutableRawBufferPointer(space))
                initialized = 0
            }
            body.append(contentsOf: buffer[start...])
            start = buffer.count
            return nil
        case .resync(let offset, let reason):
            start += offset
            return .skipped(reason)
        case .invalid(let reason):
            start = blockEnd
            return .skipped(reason)
        }
    }

    private func headerEnd() -> Int? {
        var index = start
        let limit = buffer.count - 3
        while index < limit {
            if buffer[index] == 0x0D && buffer[index + 1] == 0x0A && buffer[index + 2] == 0x0D && buffer[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }

    private enum HeaderResult {
        case length(Int)
        /// Garbage before a later `Content-Length`: skip `offset` bytes and try again there.
        case resync(offset: Int, reason: String)
        case invalid(String)
    }

    private func parseHeader(_ range: Range<Int>) -> HeaderResult {
        var length: Int?
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            var lineEnd = lineStart
            while lineEnd < range.upperBound && !(buffer[lineEnd] == 0x0D && lineEnd + 1 < buffer.count && buffer[lineEnd + 1] == 0x0A) {
                lineEnd += 1
            }
            guard let colon = buffer[lineStart..<lineEnd].firstIndex(of: UInt8(ascii: ":")),
                  colon > lineStart,
                  buffer[lineStart..<colon].allSatisfy(Self.isTokenByte)
            else {
                return garbage(in: range, reason: "a header line that is not `Name: value`")
            }
            if Self.equalsIgnoringCase(buffer[lineStart..<colon], "content-length") {
                let value = Self.trimmed(buffer[(colon + 1)..<lineEnd])
                guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return .invalid("Content-Length is not a number: \(String(decoding: value, as: UTF8.self))")
                }
                length = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            }
            lineStart = lineEnd + 2
        }
        guard let length else { return .invalid("a header without Content-Length") }
        return .length(length)
    }

    /// Looks for a later `Content-Length` in a garbage block to resynchronise on.
    private func garbage(in range: Range<Int>, reason: String) -> HeaderResult {
        let needle = Array("content-length".utf8)
        var index = range.lowerBound + 1
        while index + needle.count <= range.upperBound {
            if Self.equalsIgnoringCase(buffer[index..<(index + needle.count)], "content-length") {
                return .resync(offset: index - range.lowerBound, reason: "skipped \(index - range.lowerBound) bytes of garbage before a header")
            }
            index += 1
        }
        return .invalid(reason)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { ($0 | 0x20) == $1 || $0 == $1 }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    // MARK: Newline-delimited JSON

    private mutating func nextLine() -> FrameEvent? {
        while true {
            let searchStart = start + scannedWithoutNewline
            guard let newline = buffer[searchStart...].firstIndex(of: 0x0A) else {
                newlineSearchBytes += buffer.count - searchStart
                if available > maxMessageBytes {
                    let length = available
                    start = buffer.count
                    scannedWithoutNewline = 0
                    discardingLine = true
                    return .oversized(length: length)
                }
                scannedWithoutNewline = available
                return nil
            }
            newlineSearchBytes += newline + 1 - searchStart
            scannedWithoutNewline = 0
            var end = newline
            if end > start && buffer[end - 1] == 0x0D { end -= 1 }
            let line = buffer[start..<end]
            start = newline + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if line.count > maxMessageBytes { return .oversized(length: line.count) }
            return .message(Array(line))
        }
    }

    /// The bytes that frame `bodyLength` bytes of body in front of them (LSP) or after them (NDJSON).
    ///
    /// Written digit by digit: it runs once per message, and string interpolation is a
    /// noticeable part of a small message's cost (bench/notes/40).
    package static func header(forBodyLength bodyLength: Int) -> [UInt8] {
        precondition(bodyLength >= 0, "a negative body length")
        var header: [UInt8] = []
        header.reserveCapacity(40)
        header.append(contentsOf: headerPrefix)
        // The length in decimal, as JSON writes an integer.
        JSON.int(Int64(bodyLength)).serialize(into: &header)
        header.append(contentsOf: [0x0D, 0x0A, 0x0D, 0x0A])
        return header
    }

    private static let headerPrefix: [UInt8] = Array("Content-Length: ".utf8)
}
