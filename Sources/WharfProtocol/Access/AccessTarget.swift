import WharfJSON

/// A URL (or path) the client holds a grant for, or a bookmark of its app.
public enum AccessTarget: Sendable, Equatable {
    case url(String)
    case bookmark(String)

    init(reading reader: inout FieldReader, method: String) throws(ProtocolError) {
        switch try reader.oneOf(["url", "bookmark"], what: method) {
        case "url": self = .url(try reader.string("url"))
        default: self = .bookmark(try reader.string("bookmark"))
        }
    }

    var json: JSON {
        switch self {
        case .url(let url): ["url": .string(url)]
        case .bookmark(let token): ["bookmark": .string(token)]
        }
    }
}
