import Glibc
import CJansson

// The only file in Wharf that calls jansson: parsing. (Encoding is JSON+Encoding.swift.)

/// A valid pointer for empty inputs, whose buffers may have no base address.
/// Never written after initialisation.
nonisolated(unsafe) private let emptyCString: UnsafePointer<CChar> = {
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return UnsafePointer(pointer)
}()

/// Why bytes could not be read as JSON, with jansson's own position and wording.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int
    public var position: Int

    public var description: String { "\(message) at line \(line), column \(column)" }
}

extension JSON {
    /// Decoding flags: any value at the top level (so `1` is valid JSON that is not a request),
    /// and NUL characters allowed inside strings (see `JSON`).
    private static let decodeFlags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL)

    /// Parses one JSON text. Invalid UTF-8, lone surrogates, trailing garbage and nesting deeper
    /// than jansson's limit (2048) are errors; integers beyond `Int64` are errors too, because
    /// jansson cannot hold them exactly.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSON {
        taking(try load(bytes))
    }

    /// Parses one JSON text from bytes.
    ///
    /// Takes the bytes over and lets them go as soon as jansson has read them, before its tree
    /// becomes Swift values: given the last reference (`parse(consume body)`), a message of
    /// tens of MiB is then held twice at the peak (jansson's tree and the `JSON`), not three
    /// times.
    public static func parse(_ bytes: consuming [UInt8]) throws(JSONParseError) -> JSON {
        let root = bytes.withUnsafeBytes { raw in Result { () throws(JSONParseError) in try load(raw) } }
        _ = consume bytes
        return taking(try root.get())
    }

    /// Parses one JSON text from a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }

    /// jansson's tree of one JSON text (a new reference), or its error.
    private static func load(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> UnsafeMutablePointer<json_t> {
        var error = json_error_t()
        // A raw NUL byte is never part of a JSON text (inside strings it must be escaped), but
        // jansson stops reading at one, so a body with a NUL after a valid value would pass.
        if let base = bytes.baseAddress, let nul = memchr(base, 0, bytes.count) {
            throw JSONParseError(rawNULAt: base.distance(to: UnsafeRawPointer(nul)), in: bytes)
        }
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? emptyCString
        guard let root = json_loadb(base, bytes.count, decodeFlags, &error) else {
            throw JSONParseError(error)
        }
        return root
    }

    /// The value of a tree, which is released.
    private static func taking(_ root: UnsafeMutablePointer<json_t>) -> JSON {
        defer { json_decref(root) }
        return JSON(jansson: root)
    }

    private init(jansson value: UnsafeMutablePointer<json_t>) {
        switch wharf_json_typeof(value) {
        case JSON_OBJECT:
            var object = JSONObject(capacity: json_object_size(value))
            var iterator = json_object_iter(value)
            while let current = iterator {
                let keyPointer = json_object_iter_key(current)!
                let keyLength = json_object_iter_key_len(current)
                let key = String(decoding: UnsafeRawBufferPointer(start: keyPointer, count: keyLength), as: UTF8.self)
                // jansson already merged duplicate keys, so keys are unique here.
                object.appendUnchecked(key: key, value: JSON(jansson: json_object_iter_value(current)))
                iterator = json_object_iter_next(value, current)
            }
            self = .object(object)
        case JSON_ARRAY:
            let count = json_array_size(value)
            var array: [JSON] = []
            array.reserveCapacity(count)
            for index in 0..<count { array.append(JSON(jansson: json_array_get(value, index))) }
            self = .array(array)
        case JSON_STRING:
            let length = json_string_length(value)
            self = .string(String(decoding: UnsafeRawBufferPointer(start: json_string_value(value), count: length), as: UTF8.self))
        case JSON_INTEGER:
            self = .int(Int64(json_integer_value(value)))
        case JSON_REAL:
            self = .double(json_real_value(value))
        case JSON_TRUE:
            self = .bool(true)
        case JSON_FALSE:
            self = .bool(false)
        default:
            self = .null
        }
    }
}

extension JSONParseError {
    /// A raw NUL byte at `position`, with its line and column (1-based, counted in bytes).
    init(rawNULAt position: Int, in bytes: UnsafeRawBufferPointer) {
        let before = bytes[..<position]
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column = position - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        self.init(message: "a raw NUL byte (inside a string it must be written \\u0000)", line: line, column: column, position: position)
    }

    init(_ error: json_error_t) {
        var error = error
        let text = withUnsafeBytes(of: &error.text) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        self.init(message: text, line: Int(error.line), column: Int(error.column), position: Int(error.position))
    }
}
