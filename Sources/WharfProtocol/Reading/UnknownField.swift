import WharfJSON

/// A field a message carried that the server does not know.
public struct UnknownField: Sendable, Equatable, CustomStringConvertible {
    /// Its path in the message (`options.defaultDir`).
    public var path: String
    /// The known field it most likely meant (`options.defaultDirectory`), if one is close.
    public var suggestion: String?

    public var description: String {
        if let suggestion { return "unknown field \(path) (did you mean \(suggestion)?) was ignored" }
        return "unknown field \(path) was ignored"
    }

    /// The known name closest to `name`: the same but for case; else one it abbreviates or
    /// that it extends (`defaultDir` for `defaultDirectory`, `timeoutMsec` for `timeoutMs`;
    /// four letters at least, the nearest in length); else one within a few edits (a third of
    /// the name's length, at least two).
    static func closest(to name: String, among known: Set<String>) -> String? {
        let lower = name.lowercased()
        if let sameLetters = known.first(where: { $0.lowercased() == lower }) { return sameLetters }
        let extensions = known.filter { candidate in
            let other = candidate.lowercased()
            return min(other.count, lower.count) >= 4 && (other.hasPrefix(lower) || lower.hasPrefix(other))
        }
        if let nearest = extensions.min(by: { (abs($0.count - name.count), $0) < (abs($1.count - name.count), $1) }) {
            return nearest
        }
        let limit = max(2, name.count / 3)
        let scored = known.map { ($0, editDistance(lower, $0.lowercased())) }.filter { $0.1 <= limit }
        return scored.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    /// Levenshtein distance, over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
