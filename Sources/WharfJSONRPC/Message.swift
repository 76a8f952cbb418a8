import WharfJSON

/// A request id. JSON-RPC allows a string, a number or null; each keeps its type and exact value
/// so a reply echoes exactly what was sent (`"1"` stays a string, `9007199254740993` stays exact).
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case int(Int64)
    case double(Double)
    case string(String)
    case null

    /// Reads an id; nil for values that cannot be ids (booleans, arrays, objects).
    public init?(json: JSON) {
        switch json {
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .null: self = .null
        default: return nil
        }
    }

    public var json: JSON {
        switch self {
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .null: return .null
        }
    }

    public var description: String {
        switch self {
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        case .null: return "null"
        }
    }
}

/// A request from the peer: it expects exactly one response.
public struct Request: Sendable {
    public var id: RequestID
    public var method: String
    /// An array or an object, when present.
    public var params: JSON?
}

/// A notification from the peer: no response, ever.
public struct Notification: Sendable {
    public var method: String
    public var params: JSON?
}

/// One top-level thing read from the peer, already checked against JSON-RPC 2.0.
enum IncomingMessage {
    case request(Request)
    case notification(Notification)
    /// A response to one of our own requests.
    case response(id: RequestID, result: Result<JSON, ResponseError>)
    /// Not a valid message: answer with this error (id when one could be read, else null).
    case invalid(ResponseError, id: RequestID)
    /// A response we cannot match (no id, or neither result nor error): logged, never answered,
    /// since answering a response could loop between peers.
    case strayResponse(String)

    /// Classifies one JSON value, per JSON-RPC 2.0 §4–§5.
    init(_ json: JSON) {
        guard case .object(let object) = json else {
            self = .invalid(.invalidRequest("expected a request object, got \(json.typeName)"), id: .null)
            return
        }
        // The id is echoed even when the rest is invalid, whenever it is itself readable.
        let idValue = object["id"]
        let id = idValue.flatMap(RequestID.init(json:))
        guard object["jsonrpc"] == .string("2.0") else {
            self = .invalid(.invalidRequest("\"jsonrpc\" must be exactly \"2.0\""), id: id ?? .null)
            return
        }
        if let methodValue = object["method"] {
            guard case .string(let method) = methodValue else {
                self = .invalid(.invalidRequest("\"method\" must be a string, got \(methodValue.typeName)"), id: id ?? .null)
                return
            }
            if let idValue, id == nil {
                self = .invalid(.invalidRequest("\"id\" must be a string, a number or null, got \(idValue.typeName)"), id: .null)
                return
            }
            // `"params": null` is read as absent: pygls, Emacs's jsonrpc.el and jsonrpc-glib send
            // it for requests and notifications without params (`shutdown`, `exit`), and other
            // LSP servers accept it.
            var params = object["params"]
            if case .null? = params { params = nil }
            if let params {
                switch params {
                case .array, .object: break
                default:
                    self = .invalid(.invalidRequest("\"params\" must be an array or an object, got \(params.typeName)"), id: id ?? .null)
                    return
                }
            }
            if let id {
                self = .request(Request(id: id, method: method, params: params))
            } else {
                self = .notification(Notification(method: method, params: params))
            }
            return
        }
        let result = object["result"]
        let error = object["error"]
        if result != nil || error != nil {
            guard let id, idValue != nil else {
                self = .strayResponse("a response without a usable id")
                return
            }
            if let result, error == nil {
                self = .response(id: id, result: .success(result))
            } else if let error, result == nil, let responseError = ResponseError(json: error) {
                self = .response(id: id, result: .failure(responseError))
            } else {
                self = .strayResponse("response \(id) has both or neither of result and a valid error")
            }
            return
        }
        self = .invalid(.invalidRequest("a request needs a \"method\""), id: id ?? .null)
    }
}

/// What we send, encoded. The envelope's keys are fixed, so it is written as bytes around the
/// values the encoder writes: no `JSONObject` is built for it. Member order follows the
/// specification's examples.
enum OutgoingMessage {
    static func response(id: RequestID, result: JSON) -> [UInt8] {
        var bytes = start(id: id)
        bytes.append(contentsOf: resultKey)
        result.serialize(into: &bytes)
        bytes.append(closingBrace)
        return bytes
    }

    static func response(id: RequestID, error: ResponseError) -> [UInt8] {
        var bytes = start(id: id)
        bytes.append(contentsOf: errorKey)
        error.json.serialize(into: &bytes)
        bytes.append(closingBrace)
        return bytes
    }

    static func request(id: RequestID, method: String, params: JSON?) -> [UInt8] {
        var bytes = start(id: id)
        appendCall(method, params, to: &bytes)
        return bytes
    }

    static func notification(method: String, params: JSON?) -> [UInt8] {
        var bytes = start(id: nil)
        appendCall(method, params, to: &bytes)
        return bytes
    }

    /// The responses of one batch, as one array.
    static func batch(_ responses: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, response) in responses.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: response)
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// `{"jsonrpc":"2.0"`, then `,"id":ID` when there is one.
    private static func start(id: RequestID?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        bytes.append(contentsOf: envelopeStart)
        if let id {
            bytes.append(contentsOf: idKey)
            id.json.serialize(into: &bytes)
        }
        return bytes
    }

    /// `,"method":M`, then `,"params":P` when there are params, and the closing brace.
    private static func appendCall(_ method: String, _ params: JSON?, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: methodKey)
        JSON.string(method).serialize(into: &bytes)
        if let params {
            bytes.append(contentsOf: paramsKey)
            params.serialize(into: &bytes)
        }
        bytes.append(closingBrace)
    }

    private static let envelopeStart = Array(#"{"jsonrpc":"2.0""#.utf8)
    private static let idKey = Array(#","id":"#.utf8)
    private static let resultKey = Array(#","result":"#.utf8)
    private static let errorKey = Array(#","error":"#.utf8)
    private static let methodKey = Array(#","method":"#.utf8)
    private static let paramsKey = Array(#","params":"#.utf8)
    private static let closingBrace = UInt8(ascii: "}")
}
