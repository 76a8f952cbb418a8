import Glibc
import WharfTestSupport
import WharfJSON
import WharfJSONRPC
import WharfSystem

/// One conversation of `protocol/conformance/`, as read from its file. The format is defined in
/// `protocol/conformance/README.md`.
public struct ConformanceTranscript: Sendable, CustomStringConvertible {
    /// The file name without `.json`.
    public let name: String
    public let summary: String
    public let arguments: [JSON]
    /// Variables set for the server (`server.environment`), and those unset (given as `null`).
    public private(set) var environment: [String: String] = [:]
    public private(set) var unsetEnvironment: Set<String> = []
    public let framing: Framing
    /// Relative path → what to create there, in the order given.
    public let fixtures: [(path: String, content: JSON)]
    public let steps: [JSON]

    public var description: String { name }

    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    public static let stepKinds: Set<String> = [
        "send", "sendBody", "sendRaw", "expect", "expectAll", "expectSome", "expectNone", "closeInput", "signal", "exit",
    ]

    public init(name: String, document: JSON) throws(FormatError) {
        func fail(_ message: String) -> FormatError { FormatError(description: "\(name).json: \(message)") }
        guard case .object = document else { throw fail("not a JSON object") }
        self.name = name
        summary = document["description"]?.stringValue ?? ""
        arguments = document["server"]?["arguments"]?.arrayValue ?? []
        // `null` unsets a variable the test process has.
        for (name, value) in document["server"]?["environment"]?.objectValue ?? JSONObject() {
            switch value {
            case .null: unsetEnvironment.insert(name)
            case .string(let text): environment[name] = text
            default: throw fail("server.environment.\(name) must be a string or null")
            }
        }
        switch document["server"]?["framing"]?.stringValue ?? "lsp" {
        case "lsp": framing = .lsp
        case "ndjson": framing = .ndjson
        case let other: throw fail("server.framing must be \"lsp\" or \"ndjson\", not \"\(other)\"")
        }
        fixtures = (document["fixtures"]?.objectValue ?? JSONObject()).map { (path: $0.key, content: $0.value) }
        steps = document["steps"]?.arrayValue ?? []
        for (index, step) in steps.enumerated() {
            let kinds = (step.objectValue?.keys ?? []).filter { $0 != "comment" }
            guard kinds.count == 1, let kind = kinds.first, Self.stepKinds.contains(kind) else {
                throw fail("step \(index + 1) must have exactly one of \(Self.stepKinds.sorted().joined(separator: ", ")): \(step.jsonText)")
            }
        }
        guard steps.last?["exit"] != nil else { throw fail("the last step must be an exit step") }
    }

    /// The folder of transcripts in this repository.
    public static var directory: String { ProtocolSchema.repositoryRoot + "/protocol/conformance" }

    /// The names of every transcript, sorted.
    public static func names() -> [String] {
        directoryNames(FilePath(directory)!).map { String(decoding: $0, as: UTF8.self) }
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Reads the transcript `name` from the repository.
    public static func load(_ name: String) throws -> ConformanceTranscript {
        let text = try readTextFile(directory + "/" + name + ".json")
        return try ConformanceTranscript(name: name, document: JSON.parse(text))
    }

    /// Every method this transcript sends (in `send` and `sendBody` steps) and every method it
    /// expects the server to send (in `expect` and `expectAll` patterns).
    public var methodsSent: Set<String> {
        var methods = Set<String>()
        for step in steps {
            var messages: [JSON] = []
            if let message = step["send"] { messages = message.arrayValue ?? [message] }
            if let body = step["sendBody"]?.stringValue, let message = try? JSON.parse(body) {
                messages = message.arrayValue ?? [message]
            }
            for message in messages {
                if let method = message["method"]?.stringValue { methods.insert(method) }
            }
        }
        return methods
    }

    public var methodsExpected: Set<String> {
        var methods = Set<String>()
        for step in steps {
            let patterns = step["expectAll"]?.arrayValue ?? (step["expect"] ?? step["expectSome"]).map { [$0] } ?? []
            for pattern in patterns {
                if let method = pattern["method"]?.stringValue { methods.insert(method) }
            }
        }
        return methods
    }

    /// Every error code an `expect` or `expectAll` pattern names (`"error": {"code": …}`), at
    /// any depth (batches included).
    public var errorCodesExpected: Set<Int64> {
        var codes = Set<Int64>()
        func collect(_ pattern: JSON) {
            switch pattern {
            case .object(let members):
                if let code = members["error"]?["code"]?.intValue { codes.insert(code) }
                for member in members { collect(member.value) }
            case .array(let elements): elements.forEach(collect)
            default: break
            }
        }
        for step in steps {
            if let pattern = step["expect"] { collect(pattern) }
            if let patterns = step["expectAll"] { collect(patterns) }
            if let pattern = step["expectSome"] { collect(pattern) }
        }
        return codes
    }
}
