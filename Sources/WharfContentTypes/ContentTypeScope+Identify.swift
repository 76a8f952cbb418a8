import Glibc
import WharfSystem

/// How much of a file sniffing reads. GLib reads this much too, and agreeing with it matters
/// more than the few magic rules that look further (ISO images at 32 KiB).
let sniffLength = 4096

/// A file as identification sees it: the name it goes by, what `stat` says it is, and a way to
/// read its first bytes should the name not decide.
///
/// `wharf types identify`, `contentTypes/identify`, a dialog's listing and a dialog's choice
/// all describe a file this way and ask ``ContentTypeScope/identify(_:sniff:)``, so they cannot
/// give different answers for the same file.
public struct FileToIdentify {
    /// The name the file is listed or chosen under: a symlink's own name, not its target's.
    public var name: [UInt8]
    /// What the file is (the target, for a followed symlink).
    public var status: FileStatus
    /// For error messages.
    public var path: FilePath
    /// Fills the buffer from the start of the file; how many bytes it holds.
    public var readHead: (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int

    public init(
        name: [UInt8], status: FileStatus, path: FilePath,
        readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int
    ) {
        self.name = name
        self.status = status
        self.path = path
        self.readHead = readHead
    }
}

extension ContentTypeScope {
    /// What the file at `path` is. The path is examined (`lstat`, then `stat` through a symlink
    /// unless `followSymlinks` is false, in which case a link is `public.symlink`; a link whose
    /// target is missing is an error for that path) and then identified by
    /// ``identify(_:sniff:)``.
    ///
    /// Failures are per path (`IdentifyError`), never thrown, so a batch always completes.
    public func identify(path: FilePath, sniff: Bool = true, followSymlinks: Bool = true) -> Result<Identification, IdentifyError> {
        var status: FileStatus
        do {
            status = try FileStatus.ofLink(path)
        } catch {
            return .failure(IdentifyError(path: path, reason: .inaccessible(error)))
        }
        if status.kind == .symlink {
            if !followSymlinks {
                return .success(fileSystemType("inode/symlink"))
            }
            do {
                status = try FileStatus.of(path)
            } catch {
                let broken = error.code == ENOENT || error.code == ELOOP || error.code == ENOTDIR
                return .failure(IdentifyError(path: path, reason: broken ? .brokenSymlink(error) : .inaccessible(error)))
            }
        }
        let file = FileToIdentify(name: path.lastComponent, status: status, path: path) { buffer throws(SystemError) in
            try FileHead.read(path, into: buffer)
        }
        return identify(file, sniff: sniff)
    }

    /// **The** decision of what a file is, in this order:
    ///
    /// 1. What the file system says: a directory is `public.folder`, or a package type when its
    ///    extension declares one (`Foo.app` → `com.apple.application-bundle`); FIFOs, sockets
    ///    and devices get their `inode/*` type and are never documents.
    /// 2. The name, when it decides. The most specific rule wins, as shared-mime-info says:
    ///    a case-sensitive glob (`*.C` is C++ source, `*.c` C source), a whole name
    ///    (`CMakeLists.txt`, `Makefile`) or a longer suffix (`*.tar.gz`) knows more than a
    ///    filename extension, so the MIME database's globs decide. Among rules that know only
    ///    the extension, Wharf's own table of system types comes first (so `a.swift` is
    ///    `public.swift-source` whether or not the MIME database knows `*.swift`, and `a.py`
    ///    the identifier `contentTypes/fromFilenameExtension` gives), then a type this client
    ///    declared for the extension, then the MIME database's globs when exactly one type
    ///    matches. A package type (one conforming to `public.directory`) names directories only:
    ///    a regular file called `Tool.app` is what the rest of these steps say.
    /// 3. An empty file has nothing to sniff: the best glob if any, else `application/x-zerosize`.
    /// 4. With `sniff`, the first 4 KiB are read and matched against the magic rules; no match
    ///    means `text/plain` if the bytes look like text (no control characters but whitespace
    ///    and backspace), else `application/octet-stream`. A magic match of priority 80 or more
    ///    wins outright; otherwise, among several glob candidates the first that is, or inherits
    ///    from, the sniffed type wins; otherwise the heaviest glob. Without `sniff`, the
    ///    heaviest glob, else `application/octet-stream`.
    ///
    /// Steps 1 to 3 are shared-mime-info's recommended order as GLib reads it, so Wharf agrees
    /// with the Linux desktop; step 2's table comes first because that is what Apple's
    /// platforms do and what `contentTypes/fromFilenameExtension` answers.
    public func identify(_ file: FileToIdentify, sniff: Bool) -> Result<Identification, IdentifyError> {
        let tables = registry.tables
        switch file.status.kind {
        case .directory:
            if let package = packageType(named: file.name) {
                return .success(Identification(identifier: package, mimeType: "inode/directory", source: .extension))
            }
            return .success(fileSystemType("inode/directory"))
        case .regular:
            break
        case .symlink, .other:
            return .success(fileSystemType(Self.specialMIMEType(file.status)))
        }

        let candidates = globMatches(file.name, tables: tables)
        if let ext = filenameExtension(of: file.name),
           !candidates.contains(where: { $0.caseSensitive || $0.specificity > ext.utf8.count + 1 }) {
            if let claimant = fileType(claimingExtension: ext, tables: tables) {
                return .success(decidedByName(claimant, candidates: candidates, tables: tables))
            }
        }

        let guess: (mime: String, source: Identification.Source)
        if candidates.count == 1 {
            guess = (tables.database.typeNames[Int(candidates[0].type)], .extension)
        } else if file.status.size == 0 {
            guess = candidates.first.map { (tables.database.typeNames[Int($0.type)], .extension) }
                ?? ("application/x-zerosize", .fallback)
        } else if !sniff {
            guess = candidates.first.map { (tables.database.typeNames[Int($0.type)], .extension) }
                ?? ("application/octet-stream", .fallback)
        } else {
            switch sniffGuess(file, candidates: candidates, tables: tables) {
            case .success(let result): guess = result
            case .failure(let error): return .failure(error)
            }
        }
        return .success(Identification(identifier: identifier(forMIME: guess.mime, tables: tables),
                                       mimeType: guess.mime, source: guess.source))
    }

    /// Identifies each path on its own: one failure is that path's error, never the batch's.
    public func identify(paths: [FilePath], sniff: Bool = true, followSymlinks: Bool = true)
        -> [Result<Identification, IdentifyError>]
    {
        paths.map { identify(path: $0, sniff: sniff, followSymlinks: followSymlinks) }
    }

    // MARK: Steps

    /// A type the name decided through a filename extension: its MIME type is its own
    /// preferred one, else what the globs say, else `application/octet-stream`.
    private func decidedByName(_ record: TypeRecord, candidates: [GlobMatch], tables: Tables) -> Identification {
        let glob = candidates.first.map { tables.database.typeNames[Int($0.type)] }
        let mime = record.mimeTypes.first.map { tables.database.canonicalName($0) } ?? glob ?? "application/octet-stream"
        return Identification(identifier: record.identifier, mimeType: mime, source: .extension)
    }

    private func fileSystemType(_ mime: String) -> Identification {
        Identification(identifier: identifier(forMIME: mime, tables: registry.tables), mimeType: mime, source: .fileSystem)
    }

    /// `inode/fifo`, `inode/socket`, `inode/chardevice`, `inode/blockdevice` (or `inode/symlink`
    /// for a link described as itself).
    static func specialMIMEType(_ status: FileStatus) -> String {
        switch status.mode & S_IFMT {
        case S_IFIFO: "inode/fifo"
        case S_IFSOCK: "inode/socket"
        case S_IFCHR: "inode/chardevice"
        case S_IFBLK: "inode/blockdevice"
        default: "inode/symlink"
        }
    }

    /// The glob candidates for a name: duplicates folded (keeping the highest weight), ordered
    /// by weight, then by discovery — GLib's list.
    func globMatches(_ name: some Collection<UInt8>, tables: Tables) -> [GlobMatch] {
        var matches: [GlobMatch] = []
        tables.database.globs.forEachMatch(name) { match in
            if let existing = matches.firstIndex(where: { $0.type == match.type }) {
                matches[existing].weight = max(matches[existing].weight, match.weight)
                matches[existing].caseSensitive = matches[existing].caseSensitive || match.caseSensitive
                matches[existing].specificity = max(matches[existing].specificity, match.specificity)
            } else if matches.count < 10 {
                matches.append(match)
            }
        }
        if matches.count > 1 {
            matches = matches.enumerated().sorted {
                $0.element.weight != $1.element.weight ? $0.element.weight > $1.element.weight : $0.offset < $1.offset
            }.map(\.element)
        }
        return matches
    }

    /// Reads the head of the file and combines the magic result with the glob candidates.
    private func sniffGuess(_ file: FileToIdentify, candidates: [GlobMatch], tables: Tables)
        -> Result<(mime: String, source: Identification.Source), IdentifyError>
    {
        let database = tables.database
        return withUnsafeTemporaryAllocation(byteCount: sniffLength, alignment: 1) { buffer in
            let count: Int
            do throws(SystemError) {
                count = try file.readHead(buffer)
            } catch {
                return .failure(IdentifyError(path: file.path, reason: .unreadable(error)))
            }
            let data = UnsafeRawBufferPointer(rebasing: buffer[0 ..< count])
            var sniffed: (mime: String, priority: Int, fromMagic: Bool)?
            if let match = database.magic.match(data) {
                sniffed = (database.typeNames[Int(match.type)], match.priority, true)
            } else if looksLikeText(data) {
                sniffed = ("text/plain", 0, false)
            }
            // A desktop entry can launch anything; never let contents alone make a file one
            // (GLib's rule, for the same reason).
            if sniffed?.mime == "application/x-desktop" { sniffed?.mime = "text/plain" }

            guard let first = candidates.first else {
                guard let sniffed else { return .success(("application/octet-stream", .fallback)) }
                return .success((sniffed.mime, sniffed.fromMagic ? .magic : .fallback))
            }
            if let sniffed {
                if sniffed.priority >= 80 { return .success((sniffed.mime, .magic)) }
                for candidate in candidates {
                    let name = database.typeNames[Int(candidate.type)]
                    if database.isSubclass(name, of: sniffed.mime) {
                        return .success((name, sniffed.fromMagic ? .magic : .extension))
                    }
                }
            }
            return .success((database.typeNames[Int(first.type)], .extension))
        }
    }

    /// GLib's test: text unless a control character other than whitespace or backspace occurs.
    /// Bytes with the high bit set count as text (they occur in UTF-8).
    private func looksLikeText(_ data: UnsafeRawBufferPointer) -> Bool {
        for byte in data {
            if byte < 0x20 || byte == 0x7F {
                switch byte {
                case 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D: continue
                default: return false
                }
            }
        }
        return true
    }

    /// The type a regular file is by its (lowercased) extension alone, when the name knows no
    /// more than that: Wharf's table first, then this client's declarations. A package type
    /// (`Tool.app`) is a directory's, never a regular file's.
    func fileType(claimingExtension ext: String, tables: Tables) -> TypeRecord? {
        if let system = tables.systemByExtension[ext], !system.conforms(to: "public.directory") { return system }
        if !declared.byExtension.isEmpty, let declaredType = declared.byExtension[ext],
           !declaredType.conforms(to: "public.directory") {
            return declaredType
        }
        return nil
    }

    /// The identifier of a package type (a type conforming to `public.directory`) that claims
    /// the directory name's extension, system types first.
    func packageType(named name: some BidirectionalCollection<UInt8>) -> String? {
        guard let ext = filenameExtension(of: name) else { return nil }
        if let system = registry.tables.systemByExtension[ext], system.conforms(to: "public.directory") {
            return system.identifier
        }
        if let declaredType = declared.byExtension[ext], declaredType.conforms(to: "public.directory") {
            return declaredType.identifier
        }
        return nil
    }
}

/// The lowercased text after the last dot of a name; nil when there is none, the name is a
/// dot file with no other dot (`.profile` has no extension), or the extension is not UTF-8
/// (no type claims such an extension, so nothing is lost by not decoding it).
func filenameExtension(of name: some BidirectionalCollection<UInt8>) -> String? {
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return nil }
    let after = name[name.index(after: dot)...]
    guard !after.isEmpty, let text = String(validating: after.map(lowercaseASCII), as: UTF8.self) else { return nil }
    return text
}

extension ContentTypeScope {
    /// The type a regular file with this name would have, judged by the name alone: the same
    /// decision as ``identify(_:sniff:)`` without reading anything (for names that do not exist
    /// yet, such as an exporter's suggested filename). `public.data` when the name says nothing.
    public func type(forFilename name: [UInt8]) -> String {
        var status = FileStatus.regularFile
        status.size = 1
        let file = FileToIdentify(name: name, status: status, path: FilePath(bytes: name) ?? .root) { _ throws(SystemError) in 0 }
        guard let found = try? identify(file, sniff: false).get(), found.source != .fallback else { return "public.data" }
        return found.identifier
    }
}
