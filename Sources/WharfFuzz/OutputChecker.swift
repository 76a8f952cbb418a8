import WharfJSON
import WharfJSONRPC

/// Checks everything a session wrote to its client: framing first, then JSON-RPC 2.0.
///
/// Deliberately strict and independent of the server's own code paths (it does not use the
/// frame decoder), so a bug in the decoder or writer cannot hide itself.
enum OutputChecker {
    /// A description of the first problem in `output`, or nil when all of it is well formed.
    /// `framing` is what the client used; replies must use the same.
    static func problem(in output: [UInt8], framing: Framing) -> String? {
        var index = 0
        var count = 0
        while index < output.count {
            let body: ArraySlice<UInt8>
            switch framing {
            case .lsp:
                guard let frame = lspFrame(in: output, at: index) else {
                    return "message \(count + 1): not a `Content-Length: N\\r\\n\\r\\n` frame at byte \(index)"
                }
                body = frame.body
                index = frame.next
            case .ndjson:
                guard let newline = output[index...].firstIndex(of: 0x0A) else {
                    return "message \(count + 1): an NDJSON line without its newline"
                }
                body = output[index..<newline]
                index = newline + 1
            }
            count += 1
            if let problem = problem(inBody: Array(body)) { return "message \(count): \(problem)" }
        }
        return nil
    }

    /// `Content-Length: N\r\n\r\n` exactly, as the protocol promises for Wharf's own output.
    private static func lspFrame(in output: [UInt8], at start: Int) -> (body: ArraySlice<UInt8>, next: Int)? {
        let prefix = Array("Content-Length: ".utf8)
        guard output.count - start > prefix.count, Array(output[start..<(start + prefix.count)]) == prefix else { return nil }
        var index = start + prefix.count
        var length = 0
        var digits = 0
        while index < output.count, output[index] >= 0x30, output[index] <= 0x39, digits < 19 {
            length = length * 10 + Int(output[index] - 0x30)
            index += 1
            digits += 1
        }
        guard digits > 0, output.count - index >= 4, Array(output[index..<(index + 4)]) == [0x0D, 0x0A, 0x0D, 0x0A] else { return nil }
        index += 4
        guard output.count - index >= length else { return nil }
        return (output[index..<(index + length)], index + length)
    }

    private static func problem(inBody body: [UInt8]) -> String? {
        let json: JSON
        do {
            json = try JSON.parse(body)
        } catch {
            return "not JSON (\(error)): \(String(decoding: body.prefix(200), as: UTF8.self))"
        }
        switch json {
        case .array(let elements):
            guard !elements.isEmpty else { return "an empty batch response" }
            for element in elements {
                if element["method"] != nil { return "a batch response holding a message that is not a response" }
                if let problem = problem(inMessage: element) { return "in a batch: \(problem)" }
            }
            return nil
        default:
            return problem(inMessage: json)
        }
    }

    private static func problem(inMessage message: JSON) -> String? {
        guard case .object(let object) = message else { return "not an object: \(message.jsonText.prefix(200))" }
        guard object["jsonrpc"] == .string("2.0") else { return "no \"jsonrpc\": \"2.0\": \(message.jsonText.prefix(200))" }
        if let method = object["method"] {
            // A notification or request from the server (`$/logTrace`, dialogs).
            return method.stringValue == nil ? "a method that is not a string" : nil
        }
        guard let id = object["id"] else { return "a response without an id: \(message.jsonText.prefix(200))" }
        guard RequestID(json: id) != nil else { return "a response whose id is \(id.typeName)" }
        switch (object["result"], object["error"]) {
        case (.some, .none):
            return nil
        case (.none, .some(let error)):
            guard error["code"]?.intValue != nil, error["message"]?.stringValue != nil else {
                return "an error without an integer code and a message: \(error.jsonText.prefix(200))"
            }
            return nil
        default:
            return "a response without exactly one of result and error: \(message.jsonText.prefix(200))"
        }
    }
}

extension Framing {
    /// The framing `--framing auto` picks for a stream starting with `bytes`: NDJSON when the
    /// first non-blank byte is `{` or `[`, LSP otherwise. Nil when there is no such byte.
    static func chosen(for bytes: UnsafeRawBufferPointer) -> Framing? {
        for byte in bytes {
            switch byte {
            case 0x20, 0x09, 0x0D, 0x0A: continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): return .ndjson
            default: return .lsp
            }
        }
        return nil
    }
}
