import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// Paths are bytes: names that are not UTF-8, that hold a newline, that are as long as a name
/// can be; symbolic links move as links; hard links stay what they are; FIFOs and sockets are
/// refused. Each within one file system and across (a tmpfs to the disk).
struct MoverBytesTests {
    static let acrossCases = [false, true]


    static let notUTF8: [UInt8] = [0x66, 0xFF, 0xFE, 0x80, 0x2E, 0x74, 0x78, 0x74]  // "f", bytes no UTF-8 allows, ".txt"
    static let withNewline = Array("two\nlines.txt".utf8)
    static let longest = [UInt8](repeating: 0x6C, count: 251) + Array(".txt".utf8)

    @Test(arguments: acrossCases, [notUTF8, withNewline, longest])
    func namesMoveByteForByte(across: Bool, name: [UInt8]) throws {
        let folders = try MoveFolders(across: across, tmpfsSize: 16 << 20)
        let source = folders.from.appending(name)
        writeFile(source, "contents")
        let moved = try FileMover.move([MoveItem(source: source)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        #expect(moved == [folders.to.appending(name)])
        #expect(directoryNames(folders.to) == [name])
        #expect(readText(moved[0]) == "contents")
        #expect(directoryNames(folders.from).isEmpty)
    }

    @Test(arguments: acrossCases)
    func aNewNameThatIsNotUTF8IsTakenAsGiven(across: Bool) throws {
        let folders = try MoveFolders(across: across, tmpfsSize: 16 << 20)
        let source = folders.from.appending("plain.txt")
        writeFile(source, "x")
        let moved = try FileMover.move([MoveItem(source: source, name: Self.notUTF8)], into: folders.to, resolution: .fail,
                                       progress: nil, cancellation: nil)
        #expect(directoryNames(folders.to) == [Self.notUTF8])
        #expect(moved[0].bytes == folders.to.bytes + [0x2F] + Self.notUTF8)
    }

    @Test func aFreeNameForTheLongestNameStaysWithin255BytesAndWholeCharacters() throws {
        let scratch = ScratchDirectory("wharf-mv")
        // 125 two-byte characters and ".txt": 254 bytes; " 2" must cut the stem, never a character in half.
        let name = Array(String(repeating: "é", count: 125).utf8) + Array(".txt".utf8)
        writeFile(scratch.path.appending(name), "taken")
        let free = try FileMover.freeName(for: name, in: scratch.path)
        #expect(free.count <= 255)
        #expect(free == Array(String(repeating: "é", count: 124).utf8) + Array(" 2.txt".utf8))
        #expect(String(validating: free, as: UTF8.self) != nil)
    }

    @Test(arguments: acrossCases)
    func keepBothWithALongNonUTF8NameTakesAFreeName(across: Bool) throws {
        let folders = try MoveFolders(across: across, tmpfsSize: 16 << 20)
        let name = [UInt8](repeating: 0xFF, count: 250) + Array(".bin".utf8)
        let source = folders.from.appending(name)
        writeFile(source, "new")
        writeFile(folders.to.appending(name), "old")
        let moved = try FileMover.move([MoveItem(source: source)], into: folders.to, resolution: .keepBoth, progress: nil, cancellation: nil)
        let expected = [UInt8](repeating: 0xFF, count: 249) + Array(" 2.bin".utf8)
        #expect(moved == [folders.to.appending(expected)])
        #expect(readText(moved[0]) == "new")
        #expect(readText(folders.to.appending(name)) == "old")
    }

    @Test(arguments: acrossCases)
    func aSymbolicLinkMovesAsALinkNeverFollowed(across: Bool) throws {
        let folders = try MoveFolders(across: across, tmpfsSize: 16 << 20)
        let target = folders.scratch.write("target.txt", "the target")
        let link = folders.from.appending("link")
        makeSymlink(target, at: link)
        let dangling = folders.from.appending("dangling")
        makeSymlink("nowhere/at/all", at: dangling)
        let moved = try FileMover.move([MoveItem(source: link), MoveItem(source: dangling)], into: folders.to, resolution: .fail,
                                       progress: nil, cancellation: nil)
        #expect(try FileStatus.ofLink(moved[0]).kind == .symlink)
        #expect(symlinkTarget(moved[0]) == target.description)
        #expect(symlinkTarget(moved[1]) == "nowhere/at/all")
        #expect(readText(target) == "the target")
        #expect(folders.scratch.names().contains("target.txt"))
        #expect(directoryNames(folders.from).isEmpty)
    }

    @Test func aLinkToAFolderIsMovedNotTheFolder() throws {
        let folders = try MoveFolders(across: true, tmpfsSize: 16 << 20)
        folders.scratch.write("real/inside.txt", "inside")
        let link = folders.from.appending("to-folder")
        makeSymlink(folders.scratch.path("real"), at: link)
        let moved = try FileMover.move([MoveItem(source: link)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        #expect(try FileStatus.ofLink(moved[0]).kind == .symlink)
        #expect(readText(folders.scratch.path("real/inside.txt")) == "inside")
    }

    @Test(arguments: acrossCases)
    func aHardLinkedFileMovesOneNameAndTheOtherKeepsItsContents(across: Bool) throws {
        let folders = try MoveFolders(across: across, tmpfsSize: 16 << 20)
        let first = folders.from.appending("first")
        let second = folders.from.appending("second")
        writeFile(first, "shared")
        hardLink(first, at: second)
        let inode = try FileStatus.ofLink(first).inode
        let moved = try FileMover.move([MoveItem(source: first)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        #expect(readText(moved[0]) == "shared")
        #expect(readText(second) == "shared")
        #expect(!exists(first))
        #expect(try FileStatus.ofLink(second).inode == inode)
        #expect(try FileStatus.ofLink(second).linkCount == 1 || !across)
        #expect(try (FileStatus.ofLink(moved[0]).inode == inode) == !across)
    }

    @Test(arguments: acrossCases)
    func fifosAndSocketsAreRefusedAndNothingMoves(across: Bool) throws {
        let folders = try MoveFolders(across: across, tmpfsSize: 16 << 20)
        let plain = folders.from.appending("plain.txt")
        writeFile(plain, "plain")
        let fifo = folders.from.appending("pipe")
        makeFIFO(fifo)
        let socket = folders.scratch.socket(across ? "from/sock" : "from/sock")
        #expect(throws: MoveError.unsupportedFileType(fifo, "a FIFO")) {
            try FileMover.move([MoveItem(source: plain), MoveItem(source: fifo)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        }
        #expect(throws: MoveError.unsupportedFileType(socket, "a socket")) {
            try FileMover.move([MoveItem(source: plain), MoveItem(source: socket)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        }
        #expect(exists(plain) && exists(fifo) && exists(socket))
        #expect(directoryNames(folders.to).isEmpty)
    }
}
