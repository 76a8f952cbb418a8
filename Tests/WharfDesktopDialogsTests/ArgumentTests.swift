import Testing
import WharfDesktopDialogs

/// zenity's and kdialog's command lines, option by option.
@Suite struct ArgumentTests {
    func text(_ args: [[UInt8]]) -> [String] { args.map { String(decoding: $0, as: UTF8.self) } }

    let filters = [
        DesktopDialogFilter(name: "Images", patterns: [.glob("*.png"), .glob("*.JPG"), .mime("image/*")]),
        DesktopDialogFilter(name: "Only MIME", patterns: [.mime("text/plain")]),
        DesktopDialogFilter(name: "A|B with space", patterns: [.glob("my file.txt")]),
    ]

    @Test func zenityOpenOneFile() {
        let args = ZenityArguments.build(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Open"))
        #expect(text(args) == ["--file-selection", "--title=Open", "--modal", "--separator=/"])
    }

    @Test func zenityOpenSeveralWithFiltersFolderAndMessage() {
        let request = DesktopDialogRequest(
            kind: .open(multiple: true, directory: false), title: "Import", message: "pick two", modal: false,
            filters: filters, currentFilter: 2, currentFolder: Array("/home/me".utf8) + [0xE9])
        let args = ZenityArguments.build(request)
        #expect(text(args) == [
            "--file-selection", "--title=Import — pick two", "--multiple",
            "--filename=/home/me\u{FFFD}/",
            "--file-filter=A¦B with space | [mM][yY]?[fF][iI][lL][eE].[tT][xX][tT]",
            "--file-filter=Images | *.[pP][nN][gG] *.[jJ][pP][gG]",
            "--separator=/",
        ])
        #expect(args[3] == Array("--filename=/home/me".utf8) + [0xE9, UInt8(ascii: "/")], "the folder's bytes are passed as they are")
    }

    @Test func zenityFolder() {
        let args = ZenityArguments.build(DesktopDialogRequest(kind: .open(multiple: false, directory: true), title: "Folder",
                                                              filters: filters, currentFolder: Array("/srv/".utf8)))
        #expect(text(args) == ["--file-selection", "--title=Folder", "--modal", "--directory", "--filename=/srv/", "--separator=/"])
    }

    @Test func zenitySaveAsksBeforeReplacing() {
        let save = DesktopDialogRequest(kind: .save(currentName: Array("a b.txt".utf8), currentFile: nil), title: "Save",
                                        currentFolder: Array("/out".utf8))
        #expect(text(ZenityArguments.build(save)) == ["--file-selection", "--title=Save", "--modal", "--save", "--confirm-overwrite",
                                                      "--filename=/out/a b.txt", "--separator=/"])
        let again = DesktopDialogRequest(kind: .save(currentName: Array("x".utf8), currentFile: Array("/out/old.txt".utf8)), title: "")
        #expect(text(ZenityArguments.build(again)) == ["--file-selection", "--modal", "--save", "--confirm-overwrite",
                                                       "--filename=/out/old.txt", "--separator=/"])
        let bare = DesktopDialogRequest(kind: .save(currentName: Array("n.txt".utf8), currentFile: nil), title: "S")
        #expect(text(ZenityArguments.build(bare)).contains("--filename=n.txt"))
    }

    @Test func zenitySaveSeveralPicksAFolder() {
        let request = DesktopDialogRequest(kind: .saveFiles(files: [Array("a".utf8)]), title: "Export", filters: filters,
                                           currentFolder: Array("/out".utf8))
        #expect(text(ZenityArguments.build(request)) == ["--file-selection", "--title=Export", "--modal", "--directory",
                                                         "--filename=/out/", "--separator=/"])
    }

    @Test func kdialogOpenOneAndSeveral() {
        let one = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Open", filters: filters,
                                       currentFolder: Array("/home/me".utf8))
        #expect(text(KDialogArguments.build(one)) == ["--title=Open", "--getopenfilename", "--", "/home/me",
                                                      "Images (*.png *.JPG)\nA B with space (my?file.txt)"])
        let several = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Open", parentWindow: "x11:1e00004")
        #expect(text(KDialogArguments.build(several)) == ["--title=Open", "--attach", "0x1e00004", "--multiple",
                                                          "--separate-output", "--getopenfilename", "--"])
    }

    @Test func kdialogMimeOnlyFiltersAndEscapes() {
        let mime = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "T",
                                        filters: [DesktopDialogFilter(name: "Text", patterns: [.mime("text/plain"), .mime("image/*")]),
                                                  DesktopDialogFilter(name: "PDF", patterns: [.mime("application/pdf")])])
        #expect(text(KDialogArguments.build(mime)) == ["--title=T", "--getopenfilename", "--", "", "text/plain application/pdf"])
        let escaped = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "T",
                                           filters: [DesktopDialogFilter(name: "back\\slash", patterns: [.glob("*.[ab]")])],
                                           currentFilter: 0)
        #expect(text(KDialogArguments.build(escaped)).last == "back\\\\slash (*.[ab])")
    }

    /// Qt takes a filter's patterns apart only when each of their characters is on its short
    /// list, and splits them at spaces: anything else in a glob becomes a wildcard matching it.
    @Test func kdialogGlobsHoldOnlyWhatQtFiltersCan() {
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "T",
                                           filters: [DesktopDialogFilter(name: "Odd (names)", patterns: [
                                               .glob("*.tüt"), .glob("a (1).txt"), .glob("x\\y|z"), .glob("*.𝄞"), .glob("*.[ab]~")])])
        #expect(text(KDialogArguments.build(request)).last == "Odd (names) (*.t?t a??1?.txt x?y?z *.* *.[ab]~)")
    }

    @Test func kdialogFolderSaveAndSaveSeveral() {
        let folder = DesktopDialogRequest(kind: .open(multiple: true, directory: true), title: "F", parentWindow: "wayland:abc",
                                          currentFolder: Array("/srv".utf8))
        #expect(text(KDialogArguments.build(folder)) == ["--title=F", "--getexistingdirectory", "--", "/srv"])
        let save = DesktopDialogRequest(kind: .save(currentName: Array("r.txt".utf8), currentFile: nil), title: "S",
                                        filters: [DesktopDialogFilter(name: "Text", patterns: [.glob("*.txt")])],
                                        currentFolder: Array("/out/".utf8))
        #expect(text(KDialogArguments.build(save)) == ["--title=S", "--getsavefilename", "--", "/out/r.txt", "Text (*.txt)"])
        let files = DesktopDialogRequest(kind: .saveFiles(files: [Array("a".utf8)]), title: "E")
        #expect(text(KDialogArguments.build(files)) == ["--title=E", "--getexistingdirectory", "--"])
    }
    /// Qt takes `-platform`, `-display`, `-reverse`… for its own wherever they stand, after `--`
    /// too: no title or start path may be one argument of its own that could be such an option.
    @Test func kdialogLeavesNothingQtCouldTakeForItsOptions() {
        let save = DesktopDialogRequest(kind: .save(currentName: Array("-platform".utf8), currentFile: nil), title: "-display",
                                        filters: [DesktopDialogFilter(name: "Any", patterns: [.mime("-reverse")])])
        #expect(text(KDialogArguments.build(save, workingDirectory: Array("/work".utf8)))
                == ["--title=-display", "--getsavefilename", "--", "/work/-platform"],
                "the bare name after the working directory (kdialog drops a bare one); no MIME type without a /")
        let inRoot = DesktopDialogRequest(kind: .save(currentName: Array("--style".utf8), currentFile: nil), title: "")
        #expect(text(KDialogArguments.build(inRoot, workingDirectory: Array("/".utf8))) == ["--getsavefilename", "--", "/--style"])
        let question = DesktopReplaceQuestion(title: "-platform", folder: Array("/o".utf8), names: [Array("a".utf8)])
        #expect(text(KDialogArguments.question(question)).first == "--title=-platform")
    }

    /// A NUL stops the spawn, and each text is one line on screen: control characters become
    /// spaces in titles and filter names, `?` in globs; a MIME type holding one is left out.
    @Test func controlCharactersNeverReachTheCommandLine() {
        let filters = [DesktopDialogFilter(name: "Im\0ages\nnew", patterns: [.glob("*.p\0ng"), .mime("image/\0png")]),
                       DesktopDialogFilter(name: "Text", patterns: [.mime("text/\u{7}plain"), .mime("text/csv")])]
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Open\0 now",
                                           message: "line one\nline two\r\u{1B}[31m\u{85}", parentWindow: "x11:1e0\0", filters: filters)
        let zenity = ZenityArguments.build(request), kdialog = KDialogArguments.build(request)
        for arg in zenity + kdialog { #expect(!arg.contains { $0 < 0x20 || $0 == 0x7F }, "\(text([arg]))") }
        #expect(text(zenity).prefix(2) == ["--file-selection", "--title=Open  now — line one line two  [31m "])
        #expect(text(zenity).contains("--file-filter=Im ages new | *.[pP]?[nN][gG]"))
        #expect(text(kdialog) == ["--title=Open  now — line one line two  [31m ", "--getopenfilename", "--", "",
                                  "Im ages new (*.p?ng)"], "no --attach for a window id that is not hex")
        let mimeOnly = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "T", filters: [filters[1]])
        #expect(text(KDialogArguments.build(mimeOnly)).last == "text/csv")
    }
    @Test func theReplaceQuestionNamesTheFilesAndTheFolder() {
        let question = DesktopReplaceQuestion(title: "Export", folder: bytes("/out/back\\slash"),
                                              names: [bytes("<b>.txt"), bytes("two\nlines") + [0xE9]], parentWindow: "x11:0x1e00004")
        #expect(question.text == "These 2 files already exist in the folder you chose. Replace them?\n\n<b>.txt\ntwo lines\u{FFFD}\n\nFolder: /out/back\\slash",
                "no name on the first line (Qt reads a first line that looks like HTML as HTML); one name a line")
        #expect(text(ZenityArguments.question(question)) == [
            "--question", "--title=Export", "--modal", "--no-markup", "--default-cancel", "--icon-name=dialog-warning",
            "--text=" + question.text, "--ok-label=Replace", "--cancel-label=Choose Another Folder"])
        #expect(text(KDialogArguments.question(question)) == [
            "--title=Export", "--attach", "0x1e00004", "--warningyesno",
            "These 2 files already exist in the folder you chose. Replace them?\n\n<b>.txt\ntwo lines\u{FFFD}\n\nFolder: /out/back\\\\slash",
            "--yes-label", "Choose Another Folder", "--no-label", "Replace"], "kdialog focuses Yes: Return must not replace")
        // kdialog reads `\n` as a line break and `\\` as `\`: a name holding them is shown as it is.
        let escapes = DesktopReplaceQuestion(title: "", folder: bytes("/o"), names: [bytes("back\\new\\\\x\\\u{301}.txt")])
        #expect(text(KDialogArguments.question(escapes))[1].contains("back\\\\new\\\\\\\\x\\\\\u{301}.txt"))
        let one = DesktopReplaceQuestion(title: "", folder: bytes("/out"), names: [bytes("b.txt")])
        #expect(one.text == "This file already exists in the folder you chose. Replace it?\n\nb.txt\n\nFolder: /out")
        let many = DesktopReplaceQuestion(title: "", folder: bytes("/o"), names: (1...12).map { bytes("f\($0)") })
        #expect(many.text.hasSuffix("\nf10\nand 2 more\n\nFolder: /o"))
    }
}
