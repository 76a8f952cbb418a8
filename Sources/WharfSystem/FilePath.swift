import Glibc

/// A path as Linux has it: bytes, not text.
///
/// A Linux file name is any sequence of bytes without `/` or NUL. It need not be UTF-8, and two
/// names that Unicode calls equal (`café` precomposed and decomposed) are two different files.
/// Swift's `String` can hold neither fact: it replaces bytes that are not UTF-8, and its `==`
/// and hashing follow Unicode canonical equivalence. So Wharf keeps every path in this type:
/// equality, hashing, ordering and prefix checks compare bytes, and nothing here decodes a
/// path except ``description``, which is for people to read and may be lossy.
///
/// Every operation is linear in the path's length: paths arrive from clients, and a hostile one
/// sends 128 KiB of tiny components.
public struct FilePath: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path's bytes: never empty, never containing NUL.
    public let bytes: [UInt8]

    /// A path from its bytes; nil when they are empty or contain NUL (no system call can take
    /// such a path).
    ///
    /// Inlinable so that each caller gets a copy specialized for its sequence (an `ArraySlice`,
    /// a `Substring.UTF8View`): called generically across modules, the first call asks the
    /// Swift runtime to look the sequence's associated types up by name, at start-up.
    @inlinable
    public init?(bytes: some Sequence<UInt8>) {
        let bytes = Array(bytes)
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        self.bytes = bytes
    }

    /// A path from text (its UTF-8 bytes); nil when empty or containing NUL.
    public init?(_ text: String) {
        self.init(bytes: text.utf8)
    }

    /// For paths written in source code. A literal with NUL is a programming error.
    public init(stringLiteral literal: String) {
        guard let path = FilePath(literal) else { preconditionFailure("not a path: \(literal.debugDescription)") }
        self = path
    }

    /// Bytes already known to be a path (non-empty, no NUL): what the file system itself
    /// returned, such as a name read from a directory. Checked in debug builds only.
    public init(unchecked bytes: [UInt8]) {
        assert(!bytes.isEmpty && !bytes.contains(0), "not a path: \(bytes)")
        self.bytes = bytes
    }

    /// A path from a C string (what `readdir`, `realpath` and `getcwd` return).
    public init(cString: UnsafePointer<CChar>) {
        let length = strlen(cString)
        self.init(unchecked: Array(UnsafeRawBufferPointer(start: cString, count: length)))
    }

    public static let root = FilePath(unchecked: [slash])

    /// For log lines and messages: the bytes read as UTF-8, with U+FFFD for what is not. Never
    /// use it to find a file again; two paths may read the same here.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes in one call: the hashing Swift would write feeds them to the hasher one at a
    /// time, and a grant's path is hashed several times in every dialog that picks it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public static func < (left: FilePath, right: FilePath) -> Bool {
        left.bytes.lexicographicallyPrecedes(right.bytes)
    }

    public var isAbsolute: Bool { bytes[0] == Self.slash }

    /// The path as C wants it: NUL-terminated, for the length of `body`.
    public func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { source in
            try withUnsafeTemporaryAllocation(of: CChar.self, capacity: source.count + 1) { buffer in
                source.withMemoryRebound(to: CChar.self) { _ = buffer.initialize(fromContentsOf: $0) }
                buffer[source.count] = 0
                return try body(UnsafePointer(buffer.baseAddress!))
            }
        }
    }

    // MARK: Taking a path apart

    /// The last component (`/a/b.txt` → `b.txt`; `/` → `/`); a trailing slash is ignored.
    public var lastComponent: [UInt8] {
        let end = trimmedEnd
        if end == 0 { return [Self.slash] }
        let start = (bytes[..<end].lastIndex(of: Self.slash) ?? -1) + 1
        return Array(bytes[start..<end])
    }

    /// Everything before the last component (`/a/b.txt` → `/a`; `/a` → `/`; `a` → `.`).
    public var directory: FilePath {
        let end = trimmedEnd
        guard let slash = bytes[..<max(end, 1)].lastIndex(of: Self.slash) else { return FilePath(unchecked: [0x2E]) }
        // Several slashes before the last component count as one.
        var cut = slash
        while cut > 0 && bytes[cut - 1] == Self.slash { cut -= 1 }
        return cut == 0 ? .root : FilePath(unchecked: Array(bytes[..<cut]))
    }

    /// `self` with `name` (one component, or a relative path) appended after exactly one `/`.
    /// NUL bytes in `name` are dropped (no path can hold one).
    public func appending(_ name: some Collection<UInt8>) -> FilePath {
        var joined = bytes
        joined.reserveCapacity(bytes.count + name.count + 1)
        if joined.last != Self.slash { joined.append(Self.slash) }
        var leading = true
        for byte in name where byte != 0 {
            if leading && byte == Self.slash { continue }
            leading = false
            joined.append(byte)
        }
        return FilePath(unchecked: joined)
    }

    /// `self` with a textual name appended (names written in source code, mostly).
    public func appending(_ name: String) -> FilePath { appending(name.utf8) }

    /// Whether `other` is this path or lies under it, judged component by component on bytes:
    /// `/a/b` contains `/a/b/c` but not `/a/bc`. Both should be normalised.
    public func contains(_ other: FilePath) -> Bool {
        if self == .root { return other.isAbsolute }
        let count = bytes.count
        guard other.bytes.count >= count, other.bytes[..<count].elementsEqual(bytes) else { return false }
        return other.bytes.count == count || other.bytes[count] == Self.slash
    }

    /// The index just past the last byte that is not a trailing slash (0 for `/`).
    private var trimmedEnd: Int {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == Self.slash { end -= 1 }
        return end
    }

    // MARK: Normalising

    /// The path made absolute (against the working directory) with `.` and empty components
    /// removed and `..` folded lexically, in one pass over the bytes. Does not touch the disk
    /// beyond `getcwd` for a relative path.
    public var normalized: FilePath {
        if isNormal { return self }
        let absolute = isAbsolute ? bytes : FilePath.current().bytes + [Self.slash] + bytes
        var output: [UInt8] = []
        output.reserveCapacity(absolute.count)
        // Where each kept component starts in `output`, so `..` can drop the last one.
        var starts: [Int] = []
        var index = 0
        while index < absolute.count {
            while index < absolute.count && absolute[index] == Self.slash { index += 1 }
            let start = index
            while index < absolute.count && absolute[index] != Self.slash { index += 1 }
            let length = index - start
            if length == 0 || (length == 1 && absolute[start] == 0x2E) { continue }
            if length == 2 && absolute[start] == 0x2E && absolute[start + 1] == 0x2E {
                if let last = starts.popLast() { output.removeSubrange(last...) }
                continue
            }
            starts.append(output.count)
            output.append(Self.slash)
            output.append(contentsOf: absolute[start..<index])
        }
        return output.isEmpty ? .root : FilePath(unchecked: output)
    }

    /// Whether ``normalized`` would give back these very bytes: absolute, with no empty, `.` or
    /// `..` component (so no `//` and no trailing slash). Most paths a dialog sees are, and the
    /// check, one pass without allocating, spares them a copy.
    private var isNormal: Bool {
        guard isAbsolute else { return false }
        return bytes.withUnsafeBufferPointer { bytes in
            if bytes.count == 1 { return true }
            var start = 1
            for index in 1...bytes.count where index == bytes.count || bytes[index] == Self.slash {
                let length = index - start
                if length == 0 { return false }
                if bytes[start] == 0x2E && (length == 1 || (length == 2 && bytes[start + 1] == 0x2E)) { return false }
                start = index + 1
            }
            return true
        }
    }

    /// `realpath(3)`: every symlink resolved, the result absolute.
    public func resolved() throws(SystemError) -> FilePath {
        let result = withCString { realpath($0, nil) }
        guard let result else { throw .current("realpath", path: self) }
        defer { free(result) }
        return FilePath(cString: result)
    }

    // MARK: Well-known places

    /// The working directory (`getcwd(3)`), or `/` if it cannot be read.
    public static func current() -> FilePath {
        guard let cwd = getcwd(nil, 0) else { return .root }
        defer { free(cwd) }
        return FilePath(cString: cwd)
    }

    /// `$HOME`, or the password database's home directory, or `/`.
    public static func home() -> FilePath {
        if let home = getenv("HOME"), home.pointee != 0 { return FilePath(cString: home) }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return FilePath(cString: dir) }
        return .root
    }

    static let slash = UInt8(ascii: "/")
}

extension FilePath {
    /// The `file:` URL of this path, every byte kept (see ``FileURL``).
    public var url: String { FileURL.from(path: self) }
}
