/// A JSON-RPC error code.
///
/// An open struct rather than a closed enum: layers above add their own codes (Wharf's live in
/// the server-error range, -32099…-32000) without changing this module or breaking callers.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Invalid JSON was received (JSON-RPC 2.0).
    public static let parseError = ErrorCode(-32700)
    /// The JSON sent is not a valid request object (JSON-RPC 2.0).
    public static let invalidRequest = ErrorCode(-32600)
    /// The method does not exist or is not available (JSON-RPC 2.0).
    public static let methodNotFound = ErrorCode(-32601)
    /// Invalid method parameters (JSON-RPC 2.0).
    public static let invalidParams = ErrorCode(-32602)
    /// Internal JSON-RPC error (JSON-RPC 2.0).
    public static let internalError = ErrorCode(-32603)
    /// A request arrived before `initialize` (LSP).
    public static let serverNotInitialized = ErrorCode(-32002)
    /// The request was cancelled by `$/cancelRequest` (LSP).
    public static let requestCancelled = ErrorCode(-32800)

    public var description: String { String(rawValue) }
}

/// The error object of a JSON-RPC response.
public struct ResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var data: WharfJSON.JSON?

    public init(_ code: ErrorCode, _ message: String, data: WharfJSON.JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static func parseError(_ message: String) -> ResponseError { .init(.parseError, message) }
    public static func invalidRequest(_ message: String) -> ResponseError { .init(.invalidRequest, message) }
    public static func methodNotFound(_ method: String) -> ResponseError {
        .init(.methodNotFound, "method not found: \(method)")
    }
    public static func invalidParams(_ message: String) -> ResponseError { .init(.invalidParams, message) }
    public static func internalError(_ message: String) -> ResponseError { .init(.internalError, message) }

    public var json: WharfJSON.JSON {
        var object = JSONObject()
        object["code"] = .int(code.rawValue)
        object["message"] = .string(message)
        if let data { object["data"] = data }
        return .object(object)
    }

    /// Reads an error object sent by the peer; nil when it is not one.
    public init?(json: WharfJSON.JSON) {
        guard case .int(let code)? = json["code"], case .string(let message)? = json["message"] else { return nil }
        self.init(ErrorCode(code), message, data: json["data"])
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

import WharfJSON
