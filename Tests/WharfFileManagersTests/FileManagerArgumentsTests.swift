import Glibc
import Testing
import WharfFileManagers
import WharfSystem
import WharfTestSupport

private func words(_ arguments: [[UInt8]]) -> [String] { arguments.map { String(decoding: $0, as: UTF8.self) } }

/// Each tool's chooser mode, and finding it.
@Suite struct FileManagerArgumentsTests {
    let folder: FilePath = "/home/ada/Documents"
    let output: FilePath = "/run/user/1000/wharf-x/chosen"

    func build(_ kind: FileManagerKind, _ mode: FileManagerMode, header: [String] = []) -> [String] {
        words(FileManagerArguments.build(kind, mode: mode, directory: folder, output: output, header: header))
    }

    @Test func fzfReadsAndPrintsNulRecordsAndMarksSeveralOnlyWhereSeveralMayBeChosen() {
        let several = build(.fzf, .files(multiple: true), header: ["Open", "/home/ada"])
        #expect(several.contains("--read0") && several.contains("--print0") && several.contains("--with-nth=2.."))
        #expect(several.contains("--multi") && !several.contains("--no-multi"))
        #expect(several.contains("--header=Open\n/home/ada"))
        #expect(build(.fzf, .files(multiple: false)).contains("--no-multi"))
        #expect(!build(.fzf, .files(multiple: false)).contains("--multi"))
        #expect(build(.fzf, .folder).contains("--no-multi"))
    }

    @Test func eachFileManagerGetsItsDocumentedChooserMode() {
        #expect(build(.lf, .files(multiple: true)) == ["-single", "-selection-path", output.description, folder.description])
        #expect(build(.lf, .folder) == ["-single", "-last-dir-path", output.description, folder.description])
        #expect(build(.nnn, .files(multiple: false)) == ["-p", output.description, folder.description])
        #expect(build(.ranger, .files(multiple: false)) == ["--choosefiles=" + output.description, folder.description])
        #expect(build(.ranger, .folder) == ["--choosedir=" + output.description, folder.description])
        #expect(build(.vifm, .files(multiple: false)) == ["--choose-files", output.description, "--delimiter", "", folder.description, folder.description])
        #expect(build(.vifm, .folder) == ["--choose-dir", output.description, folder.description, folder.description])
        #expect(build(.yazi, .files(multiple: false)) == ["--chooser-file=" + output.description, folder.description])
        #expect(build(.yazi, .folder) == ["--cwd-file=" + output.description, folder.description])
    }

    @Test func lfAndNnnReopenOnTheFileJustRefused() {
        let refused = folder.appending("b.png")
        func start(_ kind: FileManagerKind, _ select: FilePath?) -> String? {
            words(FileManagerArguments.build(kind, mode: .files(multiple: false), directory: folder, output: output, select: select)).last
        }
        #expect(start(.lf, refused) == refused.description)
        #expect(start(.nnn, refused) == refused.description)
        #expect(start(.lf, "/elsewhere/b.png") == folder.description, "only a file in the folder it opens")
        #expect(start(.lf, nil) == folder.description)
        #expect(start(.vifm, refused) == folder.description)
    }

    @Test func aFolderThatIsNotUTF8IsPassedAsItsBytes() {
        let folder = FilePath(unchecked: Array("/home/caf".utf8) + [0xE9])
        let arguments = FileManagerArguments.build(.nnn, mode: .folder, directory: folder, output: output)
        #expect(arguments.last == folder.bytes)
    }

    @Test func aToolIsFoundOnPathOnlyAsAnExecutableFile() {
        let scratch = ScratchDirectory()
        let plain = scratch.makeDirectory("plain")
        let bin = scratch.makeDirectory("bin")
        _ = scratch.write("plain/lf", "not executable", mode: 0o644)
        _ = scratch.write("bin/lf", "#!/bin/sh\n", mode: 0o755)
        let path = Array("relative:\(plain):\(bin)".utf8)
        #expect(FileManagerKind.lf.locate(path: path) == bin.appending("lf"))
        #expect(FileManagerKind.nnn.locate(path: path) == nil)
    }

    @Test func thePrivateFolderForTheChoiceIsOnlyItsOwners() throws {
        let directory = try PrivateTemporaryDirectory()
        let status = try FileStatus.ofLink(directory.path)
        #expect(status.mode & 0o777 == 0o700)
        #expect(directory.read("chosen") == nil)
        let file = try FileDescriptor.open(directory.file("chosen"), O_WRONLY | O_CREAT, mode: 0o600)
        try file.write(all: [0x2F, 0x0A, 0xFF])
        file.close()
        #expect(directory.read("chosen") == [0x2F, 0x0A, 0xFF])
        directory.remove()
        #expect((try? FileStatus.ofLink(directory.path)) == nil)
    }
}
