import WharfTestSupport
import WharfJSON

/// A JSON Schema (draft 2020-12) validator for the subset `protocol/wharf.schema.json` uses,
/// over `WharfJSON.JSON`.
///
/// Supported: boolean schemas, `type`, `const`, `enum`, `properties`, `required`,
/// `additionalProperties`, `items`, `minItems`, `maxItems`, `minLength`, `minimum`, `maximum`,
/// `oneOf`, `anyOf`, `allOf`, `not`, `$ref` (JSON pointers into the same document) and
/// `format: "uri"`. `pattern` is not: there is no regex engine without Foundation.
///
/// A keyword outside that subset is reported as a problem rather than ignored, so a schema
/// that says more than this validator checks cannot pass silently.
public struct SchemaValidator: Sendable {
    /// The document `$ref`s point into.
    public let root: JSON

    public init(root: JSON) { self.root = root }

    /// Every way `value` breaks `schema`, each prefixed by where in `value` (`result.entries[3].name`).
    /// Empty when it conforms.
    public func problems(_ value: JSON, against schema: JSON, at path: String) -> [String] {
        switch schema {
        case .bool(true): return []
        case .bool(false): return ["\(Self.label(path)): nothing is allowed here, got \(Self.show(value))"]
        case .object(let keywords): return problems(value, keywords: keywords, at: path)
        default: return ["\(Self.label(path)): the schema is not an object or a boolean: \(Self.show(schema))"]
        }
    }

    /// Whether `value` conforms to `schema`.
    public func conforms(_ value: JSON, to schema: JSON) -> Bool {
        problems(value, against: schema, at: "").isEmpty
    }

    /// Keywords that only document; they never make a value invalid.
    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "examples", "default", "deprecated", "$defs",
    ]

    private func problems(_ value: JSON, keywords: JSONObject, at path: String) -> [String] {
        var found: [String] = []
        let here = Self.label(path)
        for (keyword, argument) in keywords {
            switch keyword {
            case "$ref":
                guard let reference = argument.stringValue, let target = resolve(reference) else {
                    found.append("\(here): the schema refers to \(Self.show(argument)), which does not exist")
                    continue
                }
                found += problems(value, against: target, at: path)
            case "type":
                let names = argument.arrayValue?.compactMap(\.stringValue) ?? argument.stringValue.map { [$0] } ?? []
                if !names.contains(where: { Self.value(value, hasType: $0) }) {
                    found.append("\(here): expected \(names.joined(separator: " or ")), got \(Self.show(value))")
                }
            case "const":
                if value != argument { found.append("\(here): expected \(Self.show(argument)), got \(Self.show(value))") }
            case "enum":
                let allowed = argument.arrayValue ?? []
                if !allowed.contains(value) {
                    found.append("\(here): expected one of \(allowed.map(Self.show).joined(separator: ", ")), got \(Self.show(value))")
                }
            case "properties":
                guard case .object(let members) = value, case .object(let properties) = argument else { continue }
                for (name, schema) in properties {
                    if let member = members[name] { found += problems(member, against: schema, at: Self.join(path, name)) }
                }
            case "required":
                guard case .object(let members) = value else { continue }
                for name in argument.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                    found.append("\(here): the member \"\(name)\" is missing")
                }
            case "additionalProperties":
                guard case .object(let members) = value else { continue }
                let declared = keywords["properties"]?.objectValue?.keys ?? []
                for (name, member) in members where !declared.contains(name) {
                    if argument == .bool(false) {
                        found.append("\(here): the member \"\(name)\" is not in the schema")
                    } else {
                        found += problems(member, against: argument, at: Self.join(path, name))
                    }
                }
            case "items":
                guard case .array(let elements) = value else { continue }
                for (index, element) in elements.enumerated() {
                    found += problems(element, against: argument, at: "\(path)[\(index)]")
                }
            case "minItems", "maxItems":
                guard case .array(let elements) = value, let bound = argument.intValue else { continue }
                if keyword == "minItems" ? elements.count < bound : elements.count > bound {
                    found.append("\(here): expected \(keyword == "minItems" ? "at least" : "at most") \(bound) elements, got \(elements.count)")
                }
            case "minLength", "maxLength":
                // JSON Schema counts code points, not Swift's characters (grapheme clusters).
                guard case .string(let text) = value, let bound = argument.intValue else { continue }
                let length = text.unicodeScalars.count
                if keyword == "minLength" ? length < bound : length > bound {
                    found.append("\(here): expected \(keyword == "minLength" ? "at least" : "at most") \(bound) characters, got \(length)")
                }
            case "minimum", "maximum":
                guard let number = value.numberValue, let bound = argument.numberValue else { continue }
                if keyword == "minimum" ? number < bound : number > bound {
                    found.append("\(here): expected \(keyword == "minimum" ? "at least" : "at most") \(Self.show(argument)), got \(Self.show(value))")
                }
            case "format":
                guard case .string(let text) = value else { continue }
                if argument == "uri" && !Self.hasScheme(text) {
                    found.append("\(here): expected a URI, got \(Self.show(value))")
                }
            case "allOf":
                for schema in argument.arrayValue ?? [] { found += problems(value, against: schema, at: path) }
            case "anyOf", "oneOf":
                let alternatives = argument.arrayValue ?? []
                let outcomes = alternatives.map { problems(value, against: $0, at: path) }
                let matching = outcomes.filter(\.isEmpty).count
                if matching == 0 {
                    // The alternative that came closest explains the failure best.
                    let closest = outcomes.min { $0.count < $1.count } ?? []
                    found.append("\(here): matches none of the \(alternatives.count) alternatives; the closest fails with: \(closest.joined(separator: "; "))")
                } else if keyword == "oneOf" && matching > 1 {
                    found.append("\(here): matches \(matching) of the alternatives where exactly one must match: \(Self.show(value))")
                }
            case "not":
                if conforms(value, to: argument) { found.append("\(here): must not match \(Self.show(argument)), got \(Self.show(value))") }
            default:
                if !Self.annotations.contains(keyword) {
                    found.append("\(here): the schema uses \"\(keyword)\", which this validator does not support")
                }
            }
        }
        return found
    }

    /// The schema a `$ref` names: a JSON pointer into this document (`#/$defs/Dialog`).
    func resolve(_ reference: String) -> JSON? {
        guard reference.hasPrefix("#") else { return nil }
        var current = root
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = String(token).replacingOccurrences("~1", with: "/").replacingOccurrences("~0", with: "~")
            switch current {
            case .object: guard let next = current[key] else { return nil }; current = next
            case .array(let elements): guard let index = Int(key), elements.indices.contains(index) else { return nil }; current = elements[index]
            default: return nil
            }
        }
        return current
    }

    static func value(_ value: JSON, hasType name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): return true
        case ("number", .int), ("number", .double), ("integer", .int): return true
        case ("integer", .double(let number)): return number.rounded() == number
        default: return false
        }
    }

    /// `scheme:` as RFC 3986 spells it: a letter, then letters, digits, `+`, `-` or `.`.
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    static func join(_ path: String, _ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }
    static func label(_ path: String) -> String { path.isEmpty ? "(the value)" : path }

    /// A value as it would appear in the message, shortened for long values.
    static func show(_ value: JSON) -> String {
        let text = value.jsonText
        return text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}

extension String {
    /// Replaces every occurrence of `target` (Foundation's method without Foundation).
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
