import Glibc
import WharfSystem

/// Moves files and folders into a folder a person chose, all or nothing, never losing one.
///
/// Within one file system an item is renamed (`renameat2` with `RENAME_NOREPLACE`), which takes
/// no time proportional to its size and cannot be seen half done. Across file systems it is
/// copied into a temporary name in the destination folder (a folder recursively), synced, and
/// renamed into place; only when every item is durably in its new place are the originals
/// renamed to temporary names in their own folders and then removed. Until that point any
/// failure or a cancel puts everything back. A process killed at any point leaves every item in
/// its old place or its new one; what it leaves under temporary names the orphan sweep
/// (``AtomicWriter/removeOrphans(in:)``, run on the destination and the source folders) removes.
public enum FileMover {
    /// The names (bytes) of `items` that would collide in `folder`: taken by a file already
    /// there, or asked for by an earlier item too. An item already in `folder` under its name
    /// collides with nothing (moving it changes nothing).
    public static func conflicts(_ items: [MoveItem], in folder: FilePath) throws(MoveError) -> [[UInt8]] {
        let directory = try openFolder(folder)
        var taken = Set<[UInt8]>()
        var conflicting: [[UInt8]] = []
        for item in items {
            let name = item.requestedName
            try checkName(name, for: item.source)
            let alreadyThere = item.source.directory.normalized == folder.normalized && item.source.lastComponent == name
            if !taken.insert(name).inserted {
                conflicting.append(name)
            } else if !alreadyThere, try isTaken(name, in: directory, folder: folder) {
                conflicting.append(name)
            }
        }
        return conflicting
    }

    /// A free name like `name 2.txt` for `name` in `folder`: the number goes before the last
    /// extension (`archive.tar 2.gz`; a leading dot is no extension: `.profile 2`), counting up
    /// from 2, and the stem is shortened (at a UTF-8 character's start) to keep within 255 bytes.
    public static func freeName(for name: [UInt8], in folder: FilePath) throws(MoveError) -> [UInt8] {
        let directory = try openFolder(folder)
        return try freeName(for: name, in: directory, folder: folder, reserved: [])
    }

    /// Moves every item into `folder` or none: returns their new paths in the order given.
    ///
    /// `progress` is called from the moving thread, at most ten times a second, while more than
    /// 1 MiB crosses file systems. `cancellation` may be set from any other thread; it is
    /// honoured until every item is in its new place. Runs on the calling thread and blocks it.
    public static func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(MoveError) -> [FilePath] {
        try move(items, into: folder, resolution: resolution, progress: progress, cancellation: cancellation, observer: nil)
    }

    /// ``move(_:into:resolution:progress:cancellation:)`` telling `observer` each ``MoveStep``
    /// as it is reached.
    public static func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?,
        observer: (@Sendable (MoveStep) -> Void)?
    ) throws(MoveError) -> [FilePath] {
        try move(items, into: folder, resolution: resolution, progress: progress, cancellation: cancellation,
                 observer: observer, configuration: WriterConfiguration())
    }

    /// `move` with the knobs tests turn (see ``WriterConfiguration``).
    static func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?,
        observer: (@Sendable (MoveStep) -> Void)?, configuration: WriterConfiguration
    ) throws(MoveError) -> [FilePath] {
        guard !items.isEmpty else { return [] }
        let transaction = MoveTransaction(
            folder: folder, resolution: resolution, progress: progress, cancellation: cancellation,
            observer: observer, configuration: configuration
        )
        return try transaction.run(items)
    }

    // MARK: Shared by the entry points and the transaction

    /// The destination folder, opened without following a symbolic link anywhere on its path:
    /// the person chose it once, and a folder on the way swapped for a link since must not
    /// lead the move elsewhere.
    static func openFolder(_ folder: FilePath) throws(MoveError) -> FileDescriptor {
        guard folder.isAbsolute else {
            throw .failed(folder, SystemError(code: EINVAL, operation: "move into a relative path", path: folder))
        }
        do { return try Syscalls.openDirectoryWithoutLinks(folder) }
        catch { throw .failed(folder, error) }
    }

    /// Refuses a name no file can have, or one a sweep would take for a Wharf temporary.
    static func checkName(_ name: [UInt8], for source: FilePath) throws(MoveError) {
        let valid = !name.isEmpty && name.count <= 255 && !name.contains(0) && !name.contains(FilePath.slashByte)
            && name != [0x2E] && name != [0x2E, 0x2E] && TemporaryName.owner(of: name) == nil
            && TemporaryName.directoryOwner(of: name) == nil
        guard valid else {
            throw .failed(source, SystemError(code: EINVAL, operation: "move to the name \(String(decoding: name, as: UTF8.self).debugDescription)", path: source))
        }
    }

    static func isTaken(_ name: [UInt8], in directory: FileDescriptor, folder: FilePath) throws(MoveError) -> Bool {
        let path = folder.appending(name)
        do { return try Syscalls.statusIfPresent(in: directory, FilePath(unchecked: name), reportedAs: path) != nil }
        catch { throw .failed(path, error) }
    }

    static func freeName(
        for name: [UInt8], in directory: FileDescriptor, folder: FilePath, reserved: Set<[UInt8]>
    ) throws(MoveError) -> [UInt8] {
        // The last dot that is not the first byte starts the extension.
        let dot = name.lastIndex(of: 0x2E).flatMap { $0 > 0 ? $0 : nil }
        let stem = Array(name[..<(dot ?? name.count)])
        let suffix = Array(name[(dot ?? name.count)...])
        for number in 2..<10_000 {
            let counter = Array(" \(number)".utf8)
            var base = stem
            let room = 255 - counter.count - suffix.count
            if base.count > room {
                let cut = max(room, 0)
                // Never cut inside a UTF-8 sequence: when the first byte cut off continues one,
                // the sequence's start goes too.
                let splitsCharacter = stem[cut] & 0xC0 == 0x80
                base = Array(base[..<cut])
                if splitsCharacter {
                    while let last = base.last, last & 0xC0 == 0x80 { base.removeLast() }
                    if let last = base.last, last & 0xC0 == 0xC0 { base.removeLast() }
                }
            }
            let candidate = base + counter + suffix
            if reserved.contains(candidate) { continue }
            if try !isTaken(candidate, in: directory, folder: folder) { return candidate }
        }
        throw .failed(folder.appending(name), SystemError(code: EEXIST, operation: "find a free name in", path: folder))
    }
}

extension FilePath {
    static let slashByte = UInt8(ascii: "/")
}
