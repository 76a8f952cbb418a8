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

    func build(_ kind: FileManagerKind, _ mode: FileManagerMode, heading: [String] = [], shownFolder: String? = nil) -> [String] {
        words(FileManagerArguments.build(kind, mode: mode, directory: folder, output: output, heading: heading, shownFolder: shownFolder))
    }

    @Test func fzfReadsAndPrintsNulRecordsAndMarksSeveralOnlyWhereSeveralMayBeChosen() {
        let several = build(.fzf, .files(multiple: true), heading: ["Open", "Pick notes"], shownFolder: "~/Documents")
        #expect(several.contains("--read0") && several.contains("--print0") && several.contains("--with-nth=2.."))
        #expect(several.contains("--multi") && !several.contains("--no-multi"))
        #expect(several.contains("--header=Open\nPick notes\n~/Documents\n" + FileManagerKind.fzf.hint(for: .files(multiple: true))))
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

    /// A title holding what each tool's command language would read (quotes, lf's `$` shell
    /// prefix after a closing quote, `%` expansions, a backslash, vifm's `|`) is quoted so that
    /// the tool shows it as written.
    @Test func theHeadingIsQuotedAsEachToolsCommandLanguageRequires() throws {
        let title = #"T"; $touch x; " 'q' 5% \ | %d"#
        let lf = build(.lf, .files(multiple: false), heading: [title, "note"])
        let command = try #require(lf.firstIndex(of: "-command"))
        let bold = #"\033[1m"#
        #expect(lf[command + 1] == #"set promptfmt ""# + bold + #"T\"; $touch x; \" 'q' 5%"# + bold + #" \\ | %"# + bold + "d · note"
            + #"\033[0m  \033[34;1m%d\033[0m\033[1m%f\033[0m%S\033[2m"# + FileManagerKind.lf.hint(for: .files(multiple: false)) + #"\033[0m""#)
        #expect(lf.last == folder.description && lf[lf.count - 2] == lf[command + 1])
        let ranger = build(.ranger, .folder, heading: [title])
        #expect(ranger[1] == #"--cmd=echo T"; $touch x; " 'q' 5%% \ | %%d  ["# + FileManagerKind.ranger.hint(for: .folder) + "]")
        // vifm reads the heading from the environment: nothing of it is in its command.
        let vifm = build(.vifm, .files(multiple: true), heading: [title])
        #expect(vifm.contains("-c") && !vifm.contains { $0.contains("touch") })
        #expect(vifm.contains(#"set laststatus statusline="  %{$WHARF_DIALOG_HEADING}%=%{$WHARF_DIALOG_KEYS} %N  %t%= %A %10u:%-7g %15s %20d ""#))
        let environment = FileManagerArguments.environment(for: .vifm, mode: .files(multiple: true), heading: [title, "note"])
        #expect(environment == ["WHARF_DIALOG_HEADING": title + " · note", "WHARF_DIALOG_KEYS": FileManagerKind.vifm.hint(for: .files(multiple: true))])
        // nnn and yazi cannot show it.
        #expect(build(.nnn, .folder, heading: [title]) == build(.nnn, .folder))
        #expect(build(.yazi, .folder, heading: [title]) == build(.yazi, .folder))
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
