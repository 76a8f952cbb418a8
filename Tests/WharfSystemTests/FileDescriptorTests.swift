import Glibc
import Testing
import WharfSystem
import WharfTestSupport

/// What an open descriptor says about the file behind it: the dialogs record these facts of the
/// file actually opened, not of whatever its path names a moment later.
@Suite struct OpenFileFacts {
    @Test func theResolvedPathFollowsEverySymbolicLinkLikeRealpath() throws {
        let scratch = ScratchDirectory()
        _ = scratch.makeDirectory("real")
        let file = scratch.write("real/a.txt", "a")
        _ = scratch.symlink("via", to: "real")
        let opened = try FileDescriptor.open(scratch.path("via/a.txt"), O_RDONLY)
        #expect(try opened.resolvedPath(status: try opened.status()) == file.resolved())
    }

    @Test func theResolvedPathIsWhereTheOpenedFileIsNowNotWhatItsPathNames() throws {
        let scratch = ScratchDirectory()
        let first = scratch.write("a.txt", "first")
        let opened = try FileDescriptor.open(first, O_RDONLY)
        let status = try opened.status()
        move(first, to: scratch.path("moved.txt"))
        scratch.write("a.txt", "an impostor")
        #expect(try opened.resolvedPath(status: status) == scratch.path("moved.txt").resolved())
    }

    @Test func aDeletedFileHasNoPath() throws {
        let scratch = ScratchDirectory()
        let file = scratch.write("gone.txt", "x")
        let opened = try FileDescriptor.open(file, O_RDONLY)
        let status = try opened.status()
        #expect(removeFile(file))
        #expect(throws: SystemError.self) { try opened.resolvedPath(status: status) }
    }

    @Test func namesWithBytesThatAreNotUTF8SurviveTheKernelsAnswer() throws {
        let scratch = ScratchDirectory()
        let name: [UInt8] = [0x61, 0xFF, 0x0A, 0x62]
        let path = scratch.path(bytes: name)
        _ = try FileDescriptor.open(path, O_WRONLY | O_CREAT)
        let opened = try FileDescriptor.open(path, O_RDONLY)
        #expect(try opened.resolvedPath(status: try opened.status()) == scratch.path.resolved().appending(name))
    }

    @Test func aPathWithNoLinkOnItsWayOpensAsItsOwnResolvedName() throws {
        let scratch = ScratchDirectory()
        let root = try scratch.path.resolved()
        _ = scratch.makeDirectory("real")
        scratch.write("real/a.txt", "a")
        let file = root.appending(Array("real/a.txt".utf8))
        _ = scratch.symlink("via", to: "real")
        _ = scratch.symlink("real/link.txt", to: "a.txt")
        let opened = try #require(FileDescriptor.openWithoutSymlinks(file, O_RDONLY))
        #expect(try opened.readToEnd() == Array("a".utf8))
        #expect(try opened.resolvedPath(status: try opened.status()) == file)
        // A link anywhere on the way, the last component included, and what does not open at
        // all, are left to open(2) and resolvedPath.
        #expect(FileDescriptor.openWithoutSymlinks(root.appending(Array("via/a.txt".utf8)), O_RDONLY) == nil)
        #expect(FileDescriptor.openWithoutSymlinks(root.appending(Array("real/link.txt".utf8)), O_RDONLY) == nil)
        #expect(FileDescriptor.openWithoutSymlinks(root.appending(Array("real/missing.txt".utf8)), O_RDONLY) == nil)
        #expect(FileDescriptor.openWithoutSymlinks(FilePath("real/a.txt"), O_RDONLY) == nil)
    }

    @Test func whatIsHeldWhileOpenGoesWhenTheDescriptorCloses() throws {
        final class Token: Sendable {}
        let scratch = ScratchDirectory()
        let file = scratch.write("a.txt", "a")
        for giveUp in [false, true] {
            let opened = try FileDescriptor.open(file, O_RDONLY)
            weak var watched: Token?
            do {
                let token = Token()
                watched = token
                opened.holdWhileOpen(token)
            }
            #expect(watched != nil, "kept while the descriptor is open")
            if giveUp {
                let number = opened.raw
                opened.relinquish()
                _ = Glibc.close(number)
            } else {
                opened.close()
            }
            #expect(watched == nil, "let go at once, though the descriptor object lives on")
            withExtendedLifetime(opened) {}
        }
    }

    @Test func identityFromAKnownStatusIsTheFullIdentity() throws {
        let scratch = ScratchDirectory()
        let opened = try FileDescriptor.open(scratch.write("a.txt", "a"), O_RDONLY)
        #expect(try opened.identity(status: try opened.status()) == opened.identity())
    }
}

/// Opening a descriptor again (`reopen`, through `/proc/self/fd`) never gives more access than
/// the description has: the file's permissions would otherwise decide, not how its sender
/// opened it.
@Suite struct OpeningAgain {
    @Test func aDescriptorIsOpenedAgainOnlyWithTheAccessItHas() throws {
        let scratch = ScratchDirectory()
        let file = scratch.write("a.txt", "a")  // writable by its owner: the permissions allow it all
        let readOnly = try FileDescriptor.open(file, O_RDONLY)
        #expect(readOnly.isOpenForReading && !readOnly.isOpenForWriting)
        #expect(try readOnly.reopen(O_RDONLY).readToEnd() == Array("a".utf8))
        #expect(throws: SystemError.self) { try readOnly.reopen(O_WRONLY) }
        #expect(throws: SystemError.self) { try readOnly.reopen(O_RDWR) }
        let pathOnly = try FileDescriptor.open(file, 0o10_000_000)  // O_PATH
        #expect(!pathOnly.isOpenForReading && !pathOnly.isOpenForWriting)
        #expect(throws: SystemError.self) { try pathOnly.reopen(O_RDONLY) }
        let writeOnly = try FileDescriptor.open(file, O_WRONLY)
        #expect(throws: SystemError.self) { try writeOnly.reopen(O_RDONLY) }
        #expect(try writeOnly.reopen(O_WRONLY).isOpenForWriting)
    }
}
