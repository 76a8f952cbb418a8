import WharfJSON

/// A document's bytes: UTF-8 text, base64 (RFC 4648, padded), or a file the client already has.
public enum DocumentContents: ProtocolValue {
    case text(String)
    case base64(String)
    /// A path or `file:` URL.
    case path(String)
    /// A descriptor passed over the daemon's socket (`SCM_RIGHTS`): its number among those
    /// the connection has passed, counted from 0.
    case descriptor(Int64)

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        switch try reader.oneOf(["text", "base64", "path", "fd"], what: "contents") {
        case "text": self = .text(try reader.string("text"))
        case "base64": self = .base64(try reader.string("base64"))
        case "fd": self = .descriptor(try reader.int("fd", in: 0...Int64(Int32.max)))
        default: self = .path(try reader.string("path"))
        }
    }

    public var json: JSON {
        switch self {
        case .text(let text): ["text": .string(text)]
        case .base64(let base64): ["base64": .string(base64)]
        case .path(let path): ["path": .string(path)]
        case .descriptor(let number): ["fd": .int(number)]
        }
    }

    public static var example: DocumentContents { .text("hello") }
}
