import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfContentTypes

/// Identifying files on disk with the system MIME database.
@Suite struct IdentifyTests {
    let scope = ContentTypeScope(registry: .system)
    let directory = ScratchDirectory("wharf-ct")

    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]

    @Test func extensionDecidesWhenItIsUnambiguous() throws {
        let path = directory.write("photo.png", png)
        #expect(try scope.identify(path: path).get() == Identification(identifier: "public.png", mimeType: "image/png", source: .extension))
        // An extension that lies still decides, as on the desktop.
        let lying = directory.write("photo.txt", png)
        #expect(try scope.identify(path: lying).get().identifier == "public.plain-text")
    }

    @Test func contentsDecideWhenTheNameSaysNothing() throws {
        let path = directory.write("download", png)
        #expect(try scope.identify(path: path).get() == Identification(identifier: "public.png", mimeType: "image/png", source: .magic))
        let script = directory.write("tool", "#!/usr/bin/env python3\nprint(1)\n")
        #expect(try scope.identify(path: script).get().identifier == "public.python-script")
        let text = directory.write("notes", "just words\n")
        #expect(try scope.identify(path: text).get() == Identification(identifier: "public.plain-text", mimeType: "text/plain", source: .fallback))
        let binary = directory.write("blob", [0, 1, 2, 3, 0xFF])
        #expect(try scope.identify(path: binary).get() == Identification(identifier: "public.data", mimeType: "application/octet-stream", source: .fallback))
    }

    @Test func unknownExtensionsFallBackToContents() throws {
        let path = directory.write("data.qqqzz", "words\n")
        #expect(try scope.identify(path: path).get().mimeType == "text/plain")
        let pdf = directory.write("doc.qqqzz", "%PDF-1.4\n")
        #expect(try scope.identify(path: pdf).get().identifier == "com.adobe.pdf")
    }

    @Test func emptyFilesKeepTheirNamesTypeOrAreZeroSize() throws {
        #expect(try scope.identify(path: directory.write("new.md", [])).get()
            == Identification(identifier: "net.daringfireball.markdown", mimeType: "text/markdown", source: .extension))
        let empty = try scope.identify(path: directory.write("empty", [])).get()
        #expect(empty.mimeType == "application/x-zerosize")
        #expect(empty.source == .fallback)
        #expect(scope.conforms(empty.identifier, to: "public.data"))
    }

    @Test func directoriesAreFoldersUnlessTheirExtensionDeclaresAPackage() throws {
        let folder = directory.makeDirectory("Photos")
        #expect(try scope.identify(path: folder).get() == Identification(identifier: "public.folder", mimeType: "inode/directory", source: .fileSystem))
        let app = directory.makeDirectory("Tool.app")
        #expect(try scope.identify(path: app).get() == Identification(identifier: "com.apple.application-bundle", mimeType: "inode/directory", source: .extension))
        let framework = directory.makeDirectory("Kit.framework")
        #expect(try scope.identify(path: framework).get().identifier == "com.apple.framework")
        // An extension of a file type does not make a directory a package.
        let dotted = directory.makeDirectory("album.png")
        #expect(try scope.identify(path: dotted).get().identifier == "public.folder")
    }

    @Test func aRegularFileIsNeverAPackageWhateverItsName() throws {
        // A package type is a directory type: given to a regular file it would let a script
        // named `Tool.app` through a directory picker and keep it out of a `public.data` one.
        // Such a file is what its contents say.
        let script = directory.write("Tool.app", "#!/bin/sh\necho hi\n")
        let found = try scope.identify(path: script).get()
        #expect(found == Identification(identifier: "public.shell-script", mimeType: "application/x-shellscript", source: .magic))
        for name in ["Kit.framework", "Plug.BUNDLE"] {
            let file = try scope.identify(path: directory.write(name, "plain words\n")).get()
            #expect(!scope.conforms(file.identifier, to: "public.directory"), "\(name) is \(file.identifier)")
            #expect(scope.conforms(file.identifier, to: "public.data"), "\(name) is \(file.identifier)")
        }
        #expect(!scope.conforms(scope.type(forFilename: Array("Tool.app".utf8)), to: "public.directory"))
        // A client's own package types likewise.
        var declaring = scope
        try declaring.declare([TypeDeclaration(identifier: "com.example.project", conformsTo: ["com.apple.package"],
                                               filenameExtensions: ["exproj"])])
        let project = try declaring.identify(path: directory.write("Thing.exproj", "plain words\n")).get()
        #expect(project == Identification(identifier: "public.plain-text", mimeType: "text/plain", source: .fallback))
        #expect(declaring.type(forFilename: Array("Thing.exproj".utf8)) == "public.data")
    }

    @Test func symlinksAreFollowedUnlessAskedNot() throws {
        let target = directory.write("real.png", png)
        let link = directory.symlink("link-to-png", to: target)
        #expect(try scope.identify(path: link).get().identifier == "public.png")
        #expect(try scope.identify(path: link, followSymlinks: false).get()
            == Identification(identifier: "public.symlink", mimeType: "inode/symlink", source: .fileSystem))
        let folderLink = directory.symlink("link-to-folder", to: directory.makeDirectory("sub"))
        #expect(try scope.identify(path: folderLink).get().identifier == "public.folder")
    }

    @Test func brokenSymlinksAreAPerPathErrorWhenFollowed() throws {
        let link = directory.symlink("dangling", to: directory.path("missing"))
        let result = scope.identify(path: link)
        guard case .failure(let error) = result, case .brokenSymlink(let cause) = error.reason else {
            Issue.record("expected a broken-symlink error, got \(result)")
            return
        }
        #expect(cause.code == ENOENT)
        #expect(error.path == link)
        #expect(error.description.contains(link.description))
        #expect(try scope.identify(path: link, followSymlinks: false).get().identifier == "public.symlink")
    }

    @Test func missingPathsAndFilesUsedAsDirectoriesAreInaccessible() throws {
        let file = directory.write("plain.txt", "x")
        // A path component that is a file fails with ENOTDIR, for root too.
        let result = scope.identify(path: file.appending("inner.txt"))
        guard case .failure(let error) = result, case .inaccessible(let cause) = error.reason else {
            Issue.record("expected an inaccessible error, got \(result)")
            return
        }
        #expect(cause.code == ENOTDIR)
        guard case .failure(let missing) = scope.identify(path: directory.path("nope")),
              case .inaccessible(let missingCause) = missing.reason else {
            Issue.record("expected an error for a missing file")
            return
        }
        #expect(missingCause.code == ENOENT)
    }

    /// Tests run as root, whom permission bits do not stop. The file-system user id is
    /// per-thread on Linux, so this thread alone becomes `nobody` (65534) while identifying;
    /// run as another user, `chmod 000` is enough by itself.
    @Test func unreadableContentsAreAPerPathErrorAndTheBatchGoesOn() throws {
        setMode(directory.path, 0o755)
        let secret = directory.write("secret", Array("top secret\n".utf8), mode: 0o000)
        let named = directory.write("secret.png", png, mode: 0o000)
        let readable = directory.write("open.txt", "hello\n")
        let previous = setFileSystemUser(65534)
        let results = scope.identify(paths: [readable, secret, named])
        _ = setFileSystemUser(UInt32(previous))
        #expect(try results[0].get().identifier == "public.plain-text")
        guard case .failure(let error) = results[1], case .unreadable(let cause) = error.reason else {
            Issue.record("expected an unreadable error, got \(results[1])")
            return
        }
        #expect(cause.code == EACCES)
        #expect(error.description.contains(secret.description))
        // A name that decides on its own needs no read, so it still identifies.
        #expect(try results[2].get().identifier == "public.png")
    }

    @Test func specialFilesAreIdentifiedByTheirKind() throws {
        let fifo = directory.fifo("pipe")
        let found = try scope.identify(path: fifo).get()
        #expect(found.mimeType == "inode/fifo")
        #expect(found.source == .fileSystem)
        #expect(scope.conforms(found.identifier, to: "public.item"))
        #expect(!scope.conforms(found.identifier, to: "public.data"))
    }

    @Test func aFollowedLinkIsNamedByItsOwnName() throws {
        // As in GLib: the link's name is what the user sees, so its glob decides.
        let target = directory.write("target-without-extension", "words\n")
        let link = directory.symlink("pretty.md", to: target)
        #expect(try scope.identify(path: link).get().identifier == "net.daringfireball.markdown")
    }
}
