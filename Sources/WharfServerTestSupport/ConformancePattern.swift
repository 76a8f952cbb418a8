import WharfTestSupport
import WharfJSON

/// Patterns and substitution of the conformance transcripts, exactly as
/// `protocol/conformance/README.md` defines them (the Python and Node runners implement the
/// same rules; keep the three in step).
public enum ConformancePattern {
    /// Values bound by captures (`"$dialogId"`), by name without the `$`.
    public typealias Captures = [String: JSON]

    /// The capture a string names, if it is one: `$` then an identifier.
    public static func captureName(_ text: String) -> String? {
        guard text.first == "$", text.count > 1 else { return nil }
        let name = text.dropFirst()
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return nil }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
        return String(name)
    }

    /// Replaces `$fixturesURL` and `$fixtures` inside every string of `value`.
    public static func substitutePaths(_ value: JSON, fixtures: String) -> JSON {
        map(value) { text in
            .string(text.replacingOccurrences("$fixturesURL", with: "file://" + fixtures)
                .replacingOccurrences("$fixtures", with: fixtures))
        }
    }

    /// Replaces every capture in `value` by its bound value; names unbound captures in `missing`.
    public static func substituteCaptures(_ value: JSON, _ captures: Captures, missing: inout [String]) -> JSON {
        var unbound: [String] = []
        let result = map(value) { text in
            guard let name = captureName(text) else { return .string(text) }
            guard let bound = captures[name] else {
                unbound.append(text)
                return .string(text)
            }
            return bound
        }
        missing += unbound
        return result
    }

    /// Whether `value` matches `pattern`; binds new captures in `captures` only when it does.
    public static func matches(_ value: JSON?, _ pattern: JSON, _ captures: inout Captures) -> Bool {
        var trial = captures
        guard match(value, pattern, &trial) else { return false }
        captures = trial
        return true
    }

    private static func match(_ value: JSON?, _ pattern: JSON, _ captures: inout Captures) -> Bool {
        switch pattern {
        case .string("*"):
            return value != nil
        case .string(let text):
            if let name = captureName(text) {
                guard let value else { return false }
                if let bound = captures[name] { return equal(bound, value) }
                captures[name] = value
                return true
            }
            return value == pattern
        case .object(let members):
            if members.count == 1, let (key, argument) = members.first(where: { _ in true }), key.hasPrefix("$") {
                return matchOperator(key, argument, value, &captures)
            }
            guard case .object(let actual)? = value else { return false }
            for (key, memberPattern) in members {
                if memberPattern == ["$absent": true] {
                    if actual[key] != nil { return false }
                    continue
                }
                guard match(actual[key], memberPattern, &captures) else { return false }
            }
            return true
        case .array(let elements):
            guard case .array(let actual)? = value, actual.count == elements.count else { return false }
            for (element, elementPattern) in zip(actual, elements) {
                guard match(element, elementPattern, &captures) else { return false }
            }
            return true
        default:
            guard let value else { return false }
            return equal(value, pattern)
        }
    }

    private static func matchOperator(_ name: String, _ argument: JSON, _ value: JSON?, _ captures: inout Captures) -> Bool {
        guard let value else { return false }
        switch name {
        case "$type":
            guard let type = argument.stringValue else { return false }
            return SchemaValidator.value(value, hasType: type)
        case "$contains":
            guard let text = value.stringValue, let part = argument.stringValue else { return false }
            return part.isEmpty || text.firstRange(of: part) != nil
        case "$unordered":
            guard case .array(let actual) = value, case .array(let patterns) = argument, actual.count == patterns.count else { return false }
            return matchUnordered(actual, patterns, &captures)
        default:
            // `$absent` outside an object member, or an unknown operator: never matches.
            return false
        }
    }

    /// Matches `values` to `patterns` one to one in some order (backtracking; lists are short).
    public static func matchUnordered(_ values: [JSON], _ patterns: [JSON], _ captures: inout Captures) -> Bool {
        guard values.count == patterns.count else { return false }
        var used = [Bool](repeating: false, count: values.count)
        return assign(values, patterns[...], &used, after: nil, keepingMethodOrder: false, &captures)
    }

    /// The rule of an `expectAll` step: `values` match `patterns` one to one, and the patterns
    /// that name a `method` (what the server sends on its own: notifications and requests) match
    /// in the order given, since the server's own messages keep their order; responses may
    /// come anywhere among them.
    public static func matchInterleaved(_ values: [JSON], _ patterns: [JSON], _ captures: inout Captures) -> Bool {
        guard values.count == patterns.count else { return false }
        var used = [Bool](repeating: false, count: values.count)
        return assign(values, patterns[...], &used, after: nil, keepingMethodOrder: true, &captures)
    }

    private static func assign(
        _ values: [JSON], _ patterns: ArraySlice<JSON>, _ used: inout [Bool], after lastOrdered: Int?,
        keepingMethodOrder: Bool, _ captures: inout Captures
    ) -> Bool {
        guard let pattern = patterns.first else { return true }
        let ordered = keepingMethodOrder && pattern["method"] != nil
        let start = ordered ? (lastOrdered.map { $0 + 1 } ?? 0) : 0
        for index in start..<max(start, values.count) where !used[index] {
            var trial = captures
            guard match(values[index], pattern, &trial) else { continue }
            used[index] = true
            if assign(values, patterns.dropFirst(), &used, after: ordered ? index : lastOrdered,
                      keepingMethodOrder: keepingMethodOrder, &trial) {
                captures = trial
                return true
            }
            used[index] = false
        }
        return false
    }

    /// JSON equality where `1` and `1.0` are the same number.
    static func equal(_ lhs: JSON, _ rhs: JSON) -> Bool {
        if let left = lhs.numberValue, let right = rhs.numberValue {
            if case .int(let a) = lhs, case .int(let b) = rhs { return a == b }
            return left == right
        }
        switch (lhs, rhs) {
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(equal)
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { member in b[member.key].map { equal(member.value, $0) } ?? false }
        default: return lhs == rhs
        }
    }

    /// `value` with every string replaced by `transform(string)`; keys are left alone.
    static func map(_ value: JSON, _ transform: (String) -> JSON) -> JSON {
        switch value {
        case .string(let text): return transform(text)
        case .array(let elements): return .array(elements.map { map($0, transform) })
        case .object(let members):
            return .object(JSONObject(members.map { (key: $0.key, value: map($0.value, transform)) }))
        default: return value
        }
    }
}
