import Glibc
import WharfSystem

/// One glob rule from `globs2`: a pattern that names files of a MIME type.
struct GlobRule: Sendable {
    var weight: Int
    /// Index of the MIME type in the database's type table.
    var type: Int32
    var pattern: String
    var caseSensitive: Bool
}

/// A name-to-type candidate with its glob weight.
struct GlobMatch: Sendable, Equatable {
    var type: Int32
    var weight: Int
    /// The rule that matched is case-sensitive (`*.C` for C++ source, `CORE`): a distinction
    /// by case that is more specific than any filename extension.
    var caseSensitive = false
    /// How many characters of the name the rule pins down: the whole name for a literal
    /// (`CMakeLists.txt`), the suffix for `*.tar.gz` (7), the literal characters of an
    /// `fnmatch` pattern. Compared with a filename extension's length (`.gz`, 3) to tell
    /// whether the rule knows more about the name than its extension does.
    var specificity = 0
}

/// The glob rules, split the way shared-mime-info suggests so that the common case costs
/// almost nothing:
///
/// - **literals** (`Makefile`, `core`): whole-name matches, tried first;
/// - **suffixes** (`*.png`, `*.tar.gz`: a `*` then no other wildcard), about 97% of all rules:
///   a trie over the reversed bytes, walked from the end of the name, so matching costs one step
///   per byte of the longest suffix, with no allocation and no hashing;
/// - **patterns** (`*.so.[0-9]*`, `README*`): the few that need `fnmatch(3)`.
///
/// Matching follows GLib (whose answers Wharf must agree with): a literal match ends the search;
/// among suffixes the longest one that matches wins, whatever the weights; case-insensitive
/// rules are tried on the ASCII-lowercased name and, when that yields fewer than two types,
/// every rule is tried on the name as written; `fnmatch` patterns are tried only when fewer
/// than two types matched so far. The result is ordered by weight, then by discovery.
struct GlobTable: Sendable {
    private struct Literal: Sendable {
        var match: GlobMatch
        var caseSensitive: Bool
    }

    private struct Leaf: Sendable {
        var match: GlobMatch
        var caseSensitive: Bool
    }

    /// Keyed by the pattern (lowercased unless case-sensitive). When the same key is declared
    /// twice the first rule wins, and a case-sensitive rule then hides a case-insensitive one
    /// with the same spelling, exactly as in GLib's cache (`CORE` is not `application/x-core`).
    private var literals: [[UInt8]: Literal] = [:]
    private var literalLengths: Set<Int> = []
    private var patterns: [GlobRule] = []
    /// For each pattern, literal bytes any matching name must contain (the run before the first
    /// wildcard as a prefix, or the first run after a leading `*`), so `fnmatch` is only called
    /// for names that could match.
    private var patternPrefixes: [[UInt8]] = []
    private var patternFragments: [[UInt8]] = []

    // The suffix trie, flattened: node `n` has children `edges[childStart[n] ..< childStart[n] + childCount[n]]`
    // sorted by byte, and the rules ending there in `leaves[leafStart[n] ..< leafStart[n] + leafCount[n]]`.
    private var edgeBytes: [UInt8] = []
    private var edgeTargets: [Int32] = []
    private var childStart: [Int32] = []
    private var childCount: [Int32] = []
    private var leaves: [Leaf] = []
    private var leafStart: [Int32] = []
    private var leafCount: [Int32] = []
    /// The deepest suffix, so a walk never goes further than any rule could match.
    private var maxSuffixLength = 0

    /// The rules in the order given (highest precedence first).
    init(rules: [GlobRule]) {
        let isWildcard: (UInt8) -> Bool = { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }
        // Suffix rules become keys: the bytes after the `*`, reversed and (unless the rule is
        // case-sensitive) lowercased, back to back in one buffer.
        var keyBytes: [UInt8] = []
        var keys: [SuffixKey] = []
        func add(_ rule: GlobRule, bytes: UnsafeBufferPointer<UInt8>) {
            let literalCharacters = bytes.filter { !isWildcard($0) }.count
            let match = GlobMatch(type: rule.type, weight: rule.weight, caseSensitive: rule.caseSensitive,
                                  specificity: literalCharacters)
            if !bytes.contains(where: isWildcard) {
                let key = rule.caseSensitive ? Array(bytes) : bytes.map(lowercaseASCII)
                if literals[key] == nil {
                    literals[key] = Literal(match: match, caseSensitive: rule.caseSensitive)
                    literalLengths.insert(bytes.count)
                }
            } else if bytes.first == UInt8(ascii: "*"), bytes.count > 1, !bytes.dropFirst().contains(where: isWildcard) {
                let start = keyBytes.count
                var head: UInt64 = 0
                for byte in bytes.dropFirst().reversed() {
                    let byte = rule.caseSensitive ? byte : lowercaseASCII(byte)
                    if keyBytes.count - start < 8 { head |= UInt64(byte) << (56 - 8 * (keyBytes.count - start)) }
                    keyBytes.append(byte)
                }
                keys.append(SuffixKey(start: start, count: bytes.count - 1, head: head, order: keys.count,
                                      leaf: Leaf(match: match, caseSensitive: rule.caseSensitive)))
                maxSuffixLength = max(maxSuffixLength, bytes.count - 1)
            } else {
                patterns.append(rule)
                let literalRun: (Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8] = { run in
                    let literal = run.prefix(while: { !isWildcard($0) })
                    return rule.caseSensitive ? Array(literal) : literal.map(lowercaseASCII)
                }
                if bytes.first == UInt8(ascii: "*") {
                    patternPrefixes.append([])
                    patternFragments.append(literalRun(bytes.dropFirst()))
                } else {
                    patternPrefixes.append(literalRun(bytes[...]))
                    patternFragments.append([])
                }
            }
        }
        for rule in rules {
            var pattern = rule.pattern
            pattern.withUTF8 { add(rule, bytes: $0) }
        }
        // Sorted, the keys sharing a prefix are neighbours (a key before its extensions, equal
        // keys in rule order), so each trie node is a range of keys.
        keyBytes.withUnsafeBufferPointer { keyBytes in
            keys.sort { a, b in
                if a.head != b.head { return a.head < b.head }
                for offset in min(8, a.count, b.count) ..< min(a.count, b.count) where keyBytes[a.start + offset] != keyBytes[b.start + offset] {
                    return keyBytes[a.start + offset] < keyBytes[b.start + offset]
                }
                return a.count != b.count ? a.count < b.count : a.order < b.order
            }
            keys.withUnsafeBufferPointer { keys in layOut(keys, keyBytes) }
        }
    }

    /// A suffix rule on its way into the trie.
    private struct SuffixKey {
        var start: Int
        var count: Int
        /// The first eight bytes, big-endian, zero-padded: comparing two of these orders most
        /// keys at once. A key shorter than eight bytes ties with its extensions only when
        /// they continue with zero bytes, and the tie goes to the shorter key, as it should.
        var head: UInt64
        var order: Int
        var leaf: Leaf
    }

    /// Lays the trie out breadth first from the sorted keys. A node is a range of keys that
    /// agree on their first `depth` bytes: its leaves are the keys that end there, and its
    /// children (one per distinct next byte) are numbered and their edges written together,
    /// so each node's edges are contiguous and in byte order.
    private mutating func layOut(_ keys: UnsafeBufferPointer<SuffixKey>, _ keyBytes: UnsafeBufferPointer<UInt8>) {
        var pending: [(keys: Range<Int>, depth: Int)] = [(0 ..< keys.count, 0)]
        var next = 0
        while next < pending.count {
            let (range, depth) = pending[next]
            next += 1
            var index = range.lowerBound
            let firstLeaf = leaves.count
            while index < range.upperBound, keys[index].count == depth {
                let leaf = keys[index].leaf
                if !leaves[firstLeaf...].contains(where: { $0.match.type == leaf.match.type && $0.caseSensitive == leaf.caseSensitive }) {
                    leaves.append(leaf)
                }
                index += 1
            }
            leafStart.append(Int32(firstLeaf))
            leafCount.append(Int32(leaves.count - firstLeaf))
            childStart.append(Int32(edgeBytes.count))
            var children: Int32 = 0
            while index < range.upperBound {
                let byte = keyBytes[keys[index].start + depth]
                var end = index + 1
                while end < range.upperBound, keyBytes[keys[end].start + depth] == byte { end += 1 }
                edgeBytes.append(byte)
                edgeTargets.append(Int32(pending.count))
                pending.append((index ..< end, depth + 1))
                children += 1
                index = end
            }
            childCount.append(children)
        }
    }

    /// Calls `visit` with every type the name matches, in GLib's discovery order (duplicates
    /// included; callers fold them). The name is bytes, compared as bytes (ASCII case folded
    /// for case-insensitive rules, as shared-mime-info says). Returns without allocating for
    /// names that match a suffix, which is nearly all of them.
    func forEachMatch(_ name: some Collection<UInt8>, _ visit: (GlobMatch) -> Void) {
        if let done: Void = name.withContiguousStorageIfAvailable({ forEachMatch(bytes: $0, visit) }) { return done }
        let copy = Array(name)
        copy.withUnsafeBufferPointer { forEachMatch(bytes: $0, visit) }
    }

    private func forEachMatch(bytes: UnsafeBufferPointer<UInt8>, _ visit: (GlobMatch) -> Void) {
        if bytes.isEmpty { return }
        // Literals: the lowercased name against case-insensitive rules, then the name as written.
        if literalLengths.contains(bytes.count) {
            if let literal = literals[bytes.map(lowercaseASCII)], !literal.caseSensitive {
                visit(literal.match); return
            }
            if let literal = literals[Array(bytes)] {
                visit(literal.match); return
            }
        }
        var found = walkSuffixes(bytes, foldCase: true, visit)
        if found < 2 {
            found += walkSuffixes(bytes, foldCase: false, visit)
        }
        if found < 2 && !patterns.isEmpty {
            var exact: [CChar]?
            var lower: [CChar]?
            for (index, rule) in patterns.enumerated() {
                guard Self.mayMatch(bytes, prefix: patternPrefixes[index], fragment: patternFragments[index],
                                    foldCase: !rule.caseSensitive)
                else { continue }
                // NUL-terminated copies for fnmatch(3), made once and only when a pattern may match.
                if rule.caseSensitive && exact == nil { exact = bytes.map { CChar(bitPattern: $0) } + [0] }
                if !rule.caseSensitive && lower == nil { lower = bytes.map { CChar(bitPattern: lowercaseASCII($0)) } + [0] }
                let subject = rule.caseSensitive ? exact! : lower!
                let matched = rule.pattern.withCString { pattern in fnmatch(pattern, subject, 0) == 0 }
                if matched {
                    let specificity = rule.pattern.utf8.filter { !Self.isWildcard($0) }.count
                    visit(GlobMatch(type: rule.type, weight: rule.weight, caseSensitive: rule.caseSensitive, specificity: specificity))
                }
            }
        }
    }

    /// Walks the trie from the last byte of the name and reports the rules at the deepest node
    /// that has any acceptable ones. With `foldCase` the name is lowercased on the fly and only
    /// case-insensitive rules count; without it the name is taken as written and every rule counts.
    private func walkSuffixes(_ bytes: UnsafeBufferPointer<UInt8>, foldCase: Bool, _ visit: (GlobMatch) -> Void) -> Int {
        // Remember the path; at most maxSuffixLength deep.
        var best: Int32 = -1
        var node: Int32 = 0
        var index = bytes.count - 1
        var depth = 0
        while index >= 0 && depth < maxSuffixLength {
            let byte = foldCase ? lowercaseASCII(bytes[index]) : bytes[index]
            guard let next = child(of: node, byte: byte) else { break }
            node = next
            if hasLeaves(node, acceptingCaseSensitive: !foldCase) { best = node }
            index -= 1
            depth += 1
        }
        guard best >= 0 else { return 0 }
        var count = 0
        let start = Int(leafStart[Int(best)])
        for leaf in leaves[start ..< start + Int(leafCount[Int(best)])] where !foldCase || !leaf.caseSensitive {
            visit(leaf.match)
            count += 1
        }
        return count
    }

    /// Whether `name` starts with `prefix` and contains `fragment` (ASCII case folded for
    /// case-insensitive patterns, whose literal parts are stored in lowercase).
    private static func mayMatch(_ name: UnsafeBufferPointer<UInt8>, prefix: [UInt8], fragment: [UInt8], foldCase: Bool) -> Bool {
        @inline(__always) func fold(_ byte: UInt8) -> UInt8 { foldCase ? lowercaseASCII(byte) : byte }
        if prefix.count > name.count { return false }
        for (offset, byte) in prefix.enumerated() where fold(name[offset]) != byte { return false }
        if fragment.isEmpty { return true }
        if fragment.count > name.count { return false }
        outer: for start in 0 ... name.count - fragment.count {
            for (offset, byte) in fragment.enumerated() where fold(name[start + offset]) != byte { continue outer }
            return true
        }
        return false
    }

    @inline(__always)
    private func hasLeaves(_ node: Int32, acceptingCaseSensitive: Bool) -> Bool {
        let count = Int(leafCount[Int(node)])
        if count == 0 { return false }
        if acceptingCaseSensitive { return true }
        let start = Int(leafStart[Int(node)])
        for i in start ..< start + count where !leaves[i].caseSensitive { return true }
        return false
    }

    @inline(__always)
    private func child(of node: Int32, byte: UInt8) -> Int32? {
        var low = Int(childStart[Int(node)])
        var high = low + Int(childCount[Int(node)]) - 1
        while low <= high {
            let middle = (low + high) / 2
            let candidate = edgeBytes[middle]
            if candidate < byte { low = middle + 1 } else if candidate > byte { high = middle - 1 } else { return edgeTargets[middle] }
        }
        return nil
    }
}

extension GlobTable {
    static func isWildcard(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "[")
    }
}

/// ASCII-only lowercasing, as GLib and shared-mime-info do for names: non-ASCII is left alone.
/// Returns the string itself (no copy) when it has no uppercase ASCII.
func asciiLowercased(_ string: String) -> String {
    var string = string
    let lowered = string.withUTF8 { bytes -> String? in
        guard bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { output in
            for (index, byte) in bytes.enumerated() { output[index] = lowercaseASCII(byte) }
            return bytes.count
        }
    }
    return lowered ?? string
}
