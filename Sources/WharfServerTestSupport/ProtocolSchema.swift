import Glibc
import WharfTestSupport
import WharfJSON
import WharfSystem

/// `protocol/wharf.schema.json`, the machine-readable protocol, and the check of one message
/// the server sent against it.
///
/// The schema is the source of truth for clients; checking every message the server sends in
/// every wire test against it is what keeps the two from drifting apart.
public final class ProtocolSchema: Sendable {
    /// Which way a method travels.
    public enum Direction: String, Sendable {
        case clientToServer, serverToClient, both
    }

    /// One request or notification the schema describes.
    public struct Method: Sendable {
        public let name: String
        public let isRequest: Bool
        public let direction: Direction
        /// nil: the method takes no params.
        public let params: JSON?
        /// The params member may be left out even though a schema is given.
        public let paramsOptional: Bool
        /// Requests only.
        public let result: JSON?
    }

    /// One row of the error code table.
    public struct ErrorCodeEntry: Sendable {
        public let code: Int64
        public let name: String
        /// What `error.data` must look like for this code, if the table says.
        public let data: JSON?
        /// Why no conformance transcript can provoke this code, if none can (`notInTranscripts`).
        public let notInTranscripts: String?
    }

    public let document: JSON
    public let requests: [String: Method]
    public let notifications: [String: Method]
    public let errorCodes: [Int64: ErrorCodeEntry]
    let validator: SchemaValidator

    /// The schema in this repository, loaded once.
    public static let wharf: ProtocolSchema = {
        let path = repositoryRoot + "/protocol/wharf.schema.json"
        do {
            return try ProtocolSchema(document: JSON.parse(try readTextFile(path)))
        } catch {
            fatalError("cannot load the protocol schema at \(path): \(error)")
        }
    }()

    /// Where this repository is checked out, found from this source file's own path.
    public static let repositoryRoot: String = {
        var path = #filePath
        // …/Sources/WharfTestSupport/ProtocolSchema.swift → …
        for _ in 0..<3 {
            guard let slash = path.lastIndex(of: "/") else { break }
            path = String(path[..<slash])
        }
        return path
    }()

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(document: JSON) throws(LoadError) {
        self.document = document
        validator = SchemaValidator(root: document)
        func methods(_ key: String, isRequest: Bool) throws(LoadError) -> [String: Method] {
            var methods: [String: Method] = [:]
            for (name, entry) in document[key]?.objectValue ?? JSONObject() {
                guard let direction = entry["direction"]?.stringValue.flatMap(Direction.init(rawValue:)) else {
                    throw LoadError(description: "\(key).\(name) has no valid direction")
                }
                if isRequest && entry["result"] == nil {
                    throw LoadError(description: "\(key).\(name) has no result schema")
                }
                methods[name] = Method(
                    name: name, isRequest: isRequest, direction: direction,
                    params: entry["params"], paramsOptional: entry["paramsOptional"] == true,
                    result: entry["result"]
                )
            }
            return methods
        }
        requests = try methods("requests", isRequest: true)
        notifications = try methods("notifications", isRequest: false)
        var codes: [Int64: ErrorCodeEntry] = [:]
        for entry in document["errors"]?.arrayValue ?? [] {
            guard let code = entry["code"]?.intValue, let name = entry["name"]?.stringValue else {
                throw LoadError(description: "an error table entry lacks a code or a name: \(entry.jsonText)")
            }
            if codes[code] != nil { throw LoadError(description: "the error code \(code) is tabled twice") }
            codes[code] = ErrorCodeEntry(
                code: code, name: name, data: entry["data"], notInTranscripts: entry["notInTranscripts"]?.stringValue
            )
        }
        errorCodes = codes
    }

    /// Codes the table says no transcript can provoke, with the reason.
    public var codesExemptFromConformance: [Int64: String] {
        errorCodes.compactMapValues(\.notInTranscripts)
    }

    /// Every method name the schema knows, requests and notifications.
    public var allMethods: [Method] {
        (Array(requests.values) + Array(notifications.values)).sorted { $0.name < $1.name }
    }

    /// Every way one message the server sent breaks the protocol. `methodOfRequest` names the
    /// method of the request a response answers (nil when the id is not one the client sent as
    /// a request it can name, in which case only the envelope and error are checked).
    public func problems(inServerMessage message: JSON, methodOfRequest: (JSON) -> String?) -> [String] {
        if case .array(let responses) = message {
            // A batch's answers: never empty (an empty batch is answered by one error object).
            if responses.isEmpty { return ["the server sent an empty array"] }
            return responses.enumerated().flatMap { index, response in
                problems(inResponse: response, at: "[\(index)]", methodOfRequest: methodOfRequest)
            }
        }
        guard case .object = message else { return ["the server sent \(SchemaValidator.show(message)), which is not a message"] }
        if message["method"] != nil {
            return problems(inOutgoingCall: message)
        }
        return problems(inResponse: message, at: "", methodOfRequest: methodOfRequest)
    }

    private func problems(inOutgoingCall message: JSON) -> [String] {
        let isRequest = message["id"] != nil
        let envelope = isRequest ? "#/$defs/Request" : "#/$defs/Notification"
        var found = validator.problems(message, against: ["$ref": .string(envelope)], at: "")
        guard let name = message["method"]?.stringValue else { return found }
        let kind = isRequest ? "request" : "notification"
        guard let method = (isRequest ? requests : notifications)[name] else {
            return found + ["the server sent the \(kind) \"\(name)\", which the schema does not describe"]
        }
        if method.direction == .clientToServer {
            found.append("the server sent the \(kind) \"\(name)\", which the schema says only clients send")
        }
        found += problems(inParams: message["params"], of: method)
        return found.map { "\(name): \($0)" }
    }

    private func problems(inParams params: JSON?, of method: Method) -> [String] {
        switch (params, method.params) {
        case (nil, nil): return []
        case (let params?, nil): return ["params given (\(SchemaValidator.show(params))) where the schema says there are none"]
        case (nil, _?): return method.paramsOptional ? [] : ["params missing"]
        case (let params?, let schema?): return validator.problems(params, against: schema, at: "params")
        }
    }

    private func problems(inResponse response: JSON, at position: String, methodOfRequest: (JSON) -> String?) -> [String] {
        var found = validator.problems(response, against: ["$ref": "#/$defs/Response"], at: position)
        let id = response["id"] ?? .null
        let method = id == .null ? nil : methodOfRequest(id)
        let subject = "the response to \(method.map { "\"\($0)\"" } ?? "a request") (id \(id.jsonText))"
        if let error = response["error"], let code = error["code"]?.intValue {
            if let entry = errorCodes[code] {
                if let data = error["data"] {
                    if let schema = entry.data {
                        found += validator.problems(data, against: schema, at: SchemaValidator.join(position, "error.data"))
                    } else {
                        // A client generating types from the schema would never read it.
                        found.append("error.data \(data.jsonText) given with code \(code), for which the error table describes no data")
                    }
                }
            } else {
                found.append("\(subject) carries the error code \(code), which the error table does not list")
            }
        } else if let result = response["result"], let method {
            if let entry = requests[method] {
                if let schema = entry.result {
                    found += validator.problems(result, against: schema, at: SchemaValidator.join(position, "result"))
                }
            } else {
                found.append("\(subject) is a result, but the schema describes no request \"\(method)\"")
            }
        }
        return found.map { "\(subject): \($0)" }
    }
}

/// The whole contents of a text file.
func readTextFile(_ path: String) throws(ProtocolSchema.LoadError) -> String {
    guard let file = FilePath(path), let text = readText(file) else {
        throw ProtocolSchema.LoadError(description: "cannot read \(path): \(SystemError.current("open"))")
    }
    return text
}
