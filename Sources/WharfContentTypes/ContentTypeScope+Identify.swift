#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// How much of a file sniffing reads. GLib reads this much too, and agreeing with it matters
/// more than the few magic rules that look further (ISO images at 32 KiB).
let sniffLength = 4096

extension ContentTypeScope {
    /// What the file at `path` is, following shared-mime-info's recommended checking order
    /// (and GLib's reading of it, so that Wharf agrees with the Linux desktop):
    ///
    /// 1. What the file system says: a directory is `public.folder`, or a package type when its
    ///    extension declares one (`Foo.app` → `com.apple.application-bundle`); a symlink is
    ///    followed unless `followSymlinks` is false (then it is `public.symlink`), and a link
    ///    whose target is missing is an error for that path; FIFOs, sockets and devices get their
    ///    `inode/*` type. A followed link is named by the link's own name, as GLib does.
    /// 2. The name. A file extension this client declared (and the system does not) decides
    ///    at once. Otherwise the MIME database's globs: a single type decides.
    /// 3. An empty file has nothing to sniff: the best glob if any, else `application/x-zerosize`.
    /// 4. With `sniff`, the first 4 KiB are read and matched against the magic rules; no match
    ///    means `text/plain` if the bytes look like text (no control characters but whitespace
    ///    and backspace), else `application/octet-stream`. A magic match of priority 80 or more
    ///    wins outright; otherwise, among several glob candidates the first that is, or inherits
    ///    from, the sniffed type wins; otherwise the heaviest glob.
    ///
    /// Failures are per path (`IdentifyError`), never thrown, so a batch always completes.
    public func identify(path: String, sniff: Bool = true, followSymlinks: Bool = true) -> Result<Identification, IdentifyError> {
        let tables = registry.tables
        let name = FilePath.lastComponent(of: path)
        var status: FileStatus
        do {
            status = try FileStatus.ofLink(path)
        } catch {
            return .failure(IdentifyError(path: path, reason: .inaccessible(error)))
        }
        if status.kind == .symlink {
            if !followSymlinks {
                return .success(Identification(identifier: identifier(forMIME: "inode/symlink", tables: tables),
                                               mimeType: "inode/symlink", source: .fileSystem))
            }
            do {
                status = try FileStatus.of(path)
            } catch {
                let broken = error.code == ENOENT || error.code == ELOOP || error.code == ENOTDIR
                return .failure(IdentifyError(path: path, reason: broken ? .brokenSymlink(error) : .inaccessible(error)))
            }
        }
        switch status.kind {
        case .directory:
            if let package = packageType(named: name) {
                return .success(Identification(identifier: package, mimeType: "inode/directory", source: .extension))
            }
            return .success(Identification(identifier: identifier(forMIME: "inode/directory", tables: tables),
                                           mimeType: "inode/directory", source: .fileSystem))
        case .regular:
            break
        case .symlink, .other:
            let mime: String
            switch status.mode & S_IFMT {
            case S_IFIFO: mime = "inode/fifo"
            case S_IFSOCK: mime = "inode/socket"
            case S_IFCHR: mime = "inode/chardevice"
            case S_IFBLK: mime = "inode/blockdevice"
            default: mime = "inode/symlink"
            }
            return .success(Identification(identifier: identifier(forMIME: mime, tables: tables),
                                           mimeType: mime, source: .fileSystem))
        }

        if let declaredType = declaredTypeClaiming(name: name, tables: tables) {
            let glob = globMatches(name, tables: tables).first.map { tables.database.typeNames[Int($0.type)] }
            let mime = declaredType.mimeTypes.first ?? glob ?? "application/octet-stream"
            return .success(Identification(identifier: declaredType.identifier, mimeType: mime, source: .extension))
        }

        let candidates = globMatches(name, tables: tables)
        let guess: (mime: String, source: Identification.Source)
        if candidates.count == 1 {
            guess = (tables.database.typeNames[Int(candidates[0].type)], .extension)
        } else if status.size == 0 {
            guess = candidates.first.map { (tables.database.typeNames[Int($0.type)], .extension) }
                ?? ("application/x-zerosize", .fallback)
        } else if !sniff {
            guess = candidates.first.map { (tables.database.typeNames[Int($0.type)], .extension) }
                ?? ("application/octet-stream", .fallback)
        } else {
            switch sniffGuess(path: path, candidates: candidates, tables: tables) {
            case .success(let result): guess = result
            case .failure(let error): return .failure(error)
            }
        }
        return .success(Identification(identifier: identifier(forMIME: guess.mime, tables: tables),
                                       mimeType: guess.mime, source: guess.source))
    }

    /// Identifies each path on its own: one failure is that path's error, never the batch's.
    public func identify(paths: [String], sniff: Bool = true, followSymlinks: Bool = true)
        -> [Result<Identification, IdentifyError>]
    {
        paths.map { identify(path: $0, sniff: sniff, followSymlinks: followSymlinks) }
    }

    /// The type a name alone suggests, without touching the disk — for listing large
    /// directories (like GLib's `standard::fast-content-type`). Directories are folders or
    /// packages by extension; files take the heaviest glob (the first among equals), or
    /// `public.data` when no glob matches. No allocation for the common names: the suffix trie
    /// is walked over the name's bytes and the answer is a string the registry already holds.
    public func identifyByName(_ name: String, isDirectory: Bool) -> String {
        let tables = registry.tables
        if isDirectory {
            return packageType(named: name) ?? "public.folder"
        }
        if !declared.byExtension.isEmpty, let declaredType = declaredTypeClaiming(name: name, tables: tables) {
            return declaredType.identifier
        }
        var best: GlobMatch?
        tables.database.globs.forEachMatch(name) { match in
            if best == nil || match.weight > best!.weight { best = match }
        }
        guard let best else { return "public.data" }
        return identifier(forMIMEIndex: best.type, tables: tables)
    }

    // MARK: Steps

    /// The glob candidates for a name: duplicates folded (keeping the highest weight), ordered
    /// by weight, then by discovery — GLib's list.
    func globMatches(_ name: String, tables: Tables) -> [GlobMatch] {
        var matches: [GlobMatch] = []
        tables.database.globs.forEachMatch(name) { match in
            if let existing = matches.firstIndex(where: { $0.type == match.type }) {
                matches[existing].weight = max(matches[existing].weight, match.weight)
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
    private func sniffGuess(path: String, candidates: [GlobMatch], tables: Tables)
        -> Result<(mime: String, source: Identification.Source), IdentifyError>
    {
        let database = tables.database
        return withUnsafeTemporaryAllocation(byteCount: sniffLength, alignment: 1) { buffer in
            let count: Int
            do throws(SystemError) {
                count = try FileHead.read(path, into: buffer)
            } catch {
                return .failure(IdentifyError(path: path, reason: .unreadable(error)))
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

    /// A type this client declared for the name's extension, unless the system claims the
    /// extension (system declarations win, as on Apple platforms).
    private func declaredTypeClaiming(name: String, tables: Tables) -> TypeRecord? {
        guard !declared.byExtension.isEmpty, let ext = filenameExtension(of: name),
              tables.systemByExtension[ext] == nil
        else { return nil }
        return declared.byExtension[ext]
    }

    /// The identifier of a package type (a type conforming to `public.directory`) that claims
    /// the directory name's extension, system types first.
    func packageType(named name: String) -> String? {
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

/// The lowercased text after the last dot of a name; nil when there is none or the name is a
/// dot file with no other dot (`.profile` has no extension).
func filenameExtension(of name: String) -> String? {
    let utf8 = name.utf8
    guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")), dot != utf8.startIndex else { return nil }
    let after = utf8.index(after: dot)
    guard after != utf8.endIndex else { return nil }
    return asciiLowercased(String(name[after...]))
}
