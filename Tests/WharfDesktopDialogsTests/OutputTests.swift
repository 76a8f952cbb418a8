import Testing
import WharfDesktopDialogs

/// Exit codes and standard output of zenity and kdialog, as results.
@Suite struct OutputTests {
    let openOne = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "")
    let openMany = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "")

    func result(_ kind: DesktopPresenterKind, _ code: Int32, _ out: [UInt8], _ request: DesktopDialogRequest,
                err: String = "", signal: Bool = false) -> DesktopDialogResult {
        ToolExit.result(kind: kind, status: signal ? .killed(signal: code) : .exited(code), stdout: out, stderr: Array(err.utf8),
                        request: request, exists: { _ in true })
    }

    @Test func zenitySplitsOnTheSlashNoNameCanHold() {
        #expect(ToolOutput.zenityPaths(bytes("/a/b.txt\n")) == [bytes("/a/b.txt")])
        #expect(ToolOutput.zenityPaths(bytes("/a/b.txt//c d/e\n")) == [bytes("/a/b.txt"), bytes("/c d/e")])
        #expect(ToolOutput.zenityPaths(bytes("/line\nbreak//x\n\n")) == [bytes("/line\nbreak"), bytes("/x\n")])
        #expect(ToolOutput.zenityPaths(bytes("///a\n")) == [bytes("/"), bytes("/a")], "the root, then /a")
        #expect(ToolOutput.zenityPaths(bytes("/a//\n")) == [bytes("/a"), bytes("/")], "/a, then the root")
        #expect(ToolOutput.zenityPaths(bytes("/caf") + [0xC3, 0xA9] + bytes("\n")) == [bytes("/caf") + [0xC3, 0xA9]])
        #expect(ToolOutput.zenityPaths(bytes("(null)\n")) == nil)
        #expect(ToolOutput.zenityPaths(bytes("/a///b\n")) == nil, "not canonical")
    }

    @Test func kdialogJoinsALineThatIsNotAPathToTheOneBefore() {
        #expect(ToolOutput.kdialogPaths(bytes("/a\n/b c\n")) == [bytes("/a"), bytes("/b c")])
        #expect(ToolOutput.kdialogPaths(bytes("/two\nlines\n/x\n")) == [bytes("/two\nlines"), bytes("/x")])
        #expect(ToolOutput.kdialogPaths(bytes("relative\n")) == nil)
    }

    @Test func exitCodes() {
        #expect(result(.zenity, 0, bytes("/a\n"), openOne) == .chosen(DesktopDialogChoice(paths: [bytes("/a")])))
        #expect(result(.zenity, 1, [], openOne) == .cancelled(.user))
        #expect(result(.kdialog, 1, [], openOne) == .cancelled(.user))
        #expect(result(.zenity, 5, bytes("/a\n"), openOne) == .cancelled(.timedOut))
        #expect(result(.kdialog, 5, [], openOne) == .failed("kdialog exited with status 5"))
        #expect(result(.zenity, 255, [], openOne, err: "Gtk-WARNING: cannot open display: :9\n\n")
            == .failed("zenity exited with status 255: Gtk-WARNING: cannot open display: :9"))
        #expect(result(.kdialog, 6, [], openOne, signal: true) == .failed("kdialog was killed by signal 6"))
        #expect(result(.kdialog, 134, [], openOne) == .failed("kdialog exited with status 134"))
        #expect(result(.zenity, 0, [], openOne) == .cancelled(.user), "accepted with nothing chosen")
    }

    @Test func gtkThatCannotOpenItsDisplayFailsThoughItExits1() {
        let x11 = "(zenity:10866): Gtk-WARNING **: 07:08:25.407: cannot open display: :77"
        #expect(result(.zenity, 1, [], openOne, err: "\n" + x11 + "\n") == .failed("zenity exited with status 1: " + x11))
        let wayland = "(zenity:10868): Gtk-WARNING **: cannot open display: "
        #expect(result(.zenity, 1, [], openOne, err: wayland) == .failed("zenity exited with status 1: (zenity:10868): Gtk-WARNING **: cannot open display:"),
                "no time (GLib before 2.50), no display name (Wayland)")
        // What GTK prints on an ordinary cancel, or a warning quoting a name, is still a cancel.
        #expect(result(.zenity, 1, [], openOne, err: "Gtk-Message: 07:08:25.407: GtkDialog mapped without a transient parent. This is discouraged.\n")
            == .cancelled(.user))
        #expect(result(.zenity, 1, [], openOne, err: "(zenity:1): Gtk-WARNING **: 07:08:25.407: Could not load /tmp/cannot open display: x.png\n")
            == .cancelled(.user))
        #expect(result(.zenity, 1, [], openOne, err: "cannot open display: :77\n") == .cancelled(.user), "not GTK's warning")
    }

    @Test func aQuestionsAnswer() {
        let replace = DesktopDialogResult.chosen(DesktopDialogChoice(paths: [], overwriteConfirmed: true))
        #expect(ToolExit.answer(kind: .zenity, status: .exited(0), stderr: []) == replace)
        #expect(ToolExit.answer(kind: .zenity, status: .exited(1), stderr: []) == .cancelled(.user))
        // kdialog's Yes (focused) is Choose Another Folder; Escape is 2.
        #expect(ToolExit.answer(kind: .kdialog, status: .exited(1), stderr: []) == replace)
        #expect(ToolExit.answer(kind: .kdialog, status: .exited(0), stderr: []) == .cancelled(.user))
        #expect(ToolExit.answer(kind: .kdialog, status: .exited(2), stderr: []) == .cancelled(.user))
        #expect(ToolExit.answer(kind: .kdialog, status: .exited(3), stderr: bytes("oops\n")) == .failed("kdialog exited with status 3: oops"))
    }

    @Test func choicesAreCheckedAgainstTheRequest() {
        #expect(result(.zenity, 0, bytes("/a//b\n"), openOne) == .failed("zenity returned 2 paths for a single choice"))
        #expect(result(.kdialog, 0, bytes("/a\n/b\n"), openMany).paths == [bytes("/a"), bytes("/b")])
        let missing = ToolExit.result(kind: .zenity, status: .exited(0), stdout: bytes("/a/(null)//b\n"), stderr: [],
                                      request: openMany, exists: { $0 == bytes("/b") })
        #expect(missing.failure?.contains("cannot print file names that are not valid UTF-8") == true)
        let save = DesktopDialogRequest(kind: .save(currentName: bytes("x"), currentFile: nil), title: "")
        #expect(result(.zenity, 0, bytes("/out/x\n"), save) == .chosen(DesktopDialogChoice(paths: [bytes("/out/x")], overwriteConfirmed: true)))
        // kdialog prints U+FFFD for bytes it cannot say (saving over caf\xE9.txt printed caf\u{FFFD}.txt).
        #expect(result(.kdialog, 0, bytes("/out/caf\u{FFFD}.txt\n"), save).failure?.hasPrefix("kdialog returned a path with U+FFFD") == true)
        #expect(result(.zenity, 0, bytes("/out/caf\u{FFFD}.txt\n"), save).paths == [bytes("/out/caf\u{FFFD}.txt")],
                "zenity prints a name exactly or not at all")
        let mangledFolder = ToolExit.result(kind: .kdialog, status: .exited(0), stdout: bytes("/out/x\n"), stderr: [],
                                            request: save, exists: { $0 != bytes("/out") })
        #expect(mangledFolder.failure?.contains("kdialog cannot print file names that are not valid UTF-8") == true)
        #expect(result(.kdialog, 0, bytes("/out/x\n"), save) == .chosen(DesktopDialogChoice(paths: [bytes("/out/x")], overwriteConfirmed: true)))
        let files = DesktopDialogRequest(kind: .saveFiles(files: [bytes("a.txt"), bytes("b")]), title: "")
        #expect(result(.kdialog, 0, bytes("/out\n"), files) == .chosen(DesktopDialogChoice(
            paths: [bytes("/out/a.txt"), bytes("/out/b")], overwriteConfirmed: false, folder: bytes("/out"))))
    }
}

/// Case folding, file URIs, request paths, the child's environment.
@Suite struct ConversionTests {
    @Test(arguments: [("*.png", "*.[pP][nN][gG]"), ("*.PNG", "*.[pP][nN][gG]"), ("*.tar.gz", "*.[tT][aA][rR].[gG][zZ]"),
                      ("*.[ch]", "*.[chCH]"), ("*.[a-c]x", "*.[a-cA-C][xX]"), ("[!a]", "[!aA]"), ("*.7z", "*.7[zZ]"),
                      ("\\*a", "\\*[aA]"), ("\\a", "[aA]"), ("*.[", "*.["), ("Makefile", "[mM][aA][kK][eE][fF][iI][lL][eE]"),
                      ("*.ü", "*.ü"), ("[]a]", "[]aA]")])
    func globsBecomeCaseInsensitive(glob: String, folded: String) {
        #expect(GlobCaseFolding.fold(glob) == folded)
    }

    @Test func fileURIsDecodeToExactBytes() {
        #expect(FileURIBytes.path(fromURI: "file:///tmp/a%20b.txt") == bytes("/tmp/a b.txt"))
        #expect(FileURIBytes.path(fromURI: "file:///tmp/caf%E9") == bytes("/tmp/caf") + [0xE9])
        #expect(FileURIBytes.path(fromURI: "file:///tmp/r%C3%A9sum%c3%a9") == bytes("/tmp/résumé"))
        #expect(FileURIBytes.path(fromURI: "file:///tmp/résumé") == bytes("/tmp/résumé"), "unescaped UTF-8 kept as is")
        #expect(FileURIBytes.path(fromURI: "file://localhost/etc/x") == bytes("/etc/x"))
        #expect(FileURIBytes.path(fromURI: "FILE:///x?q=1#f") == bytes("/x"))
        #expect(FileURIBytes.path(fromURI: "file:///x%2Fy%25") == bytes("/x/y%"))
        #expect(FileURIBytes.path(fromURI: "file:///bad%0") == nil)
        #expect(FileURIBytes.path(fromURI: "file:///nul%00") == nil)
        #expect(FileURIBytes.path(fromURI: "file://host/x") == nil)
        #expect(FileURIBytes.path(fromURI: "https://x/y") == nil)
        #expect(FileURIBytes.path(fromURI: "file://") == nil)
    }

    @Test func requestPathsFollowThePortalsRule() {
        #expect(PortalRequestPath.path(sender: ":1.42", token: "wharf_1_ab")
            == "/org/freedesktop/portal/desktop/request/1_42/wharf_1_ab")
        #expect(PortalRequestPath.path(sender: ":1.2.3", token: "t") == "/org/freedesktop/portal/desktop/request/1_2_3/t")
        let a = PortalRequestPath.newToken(), b = PortalRequestPath.newToken()
        #expect(a != b)
        #expect(a.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
    }

    @Test func theChildsEnvironmentCannotHangOrRenumberIt() {
        func env(_ entries: [String], _ kind: DesktopPresenterKind) -> [String] {
            ChildEnvironment.build(for: kind, from: entries.map { Array($0.utf8) }).map { String(decoding: $0, as: UTF8.self) }
        }
        let zenity = env(["PATH=/usr/bin", "ZENITY_OK=7", "ZENITY_CANCEL=9", "NO_AT_BRIDGE=0", "GTK_USE_PORTAL=1", "LANG=de_DE.UTF-8"], .zenity)
        #expect(zenity.contains("PATH=/usr/bin") && zenity.contains("LANG=de_DE.UTF-8"))
        #expect(!zenity.contains { $0.hasPrefix("ZENITY_") })
        #expect(zenity.contains("NO_AT_BRIDGE=1") && !zenity.contains("NO_AT_BRIDGE=0"))
        #expect(zenity.contains("GTK_USE_PORTAL=0") && zenity.contains("GTK_A11Y=none"))
        #expect(!zenity.contains { $0.hasPrefix("LC_CTYPE=") }, "a UTF-8 locale is left alone")
        let cLocale = env(["LC_ALL=C", "LANG=fr_FR.UTF-8"], .zenity)
        #expect(cLocale.contains("LC_CTYPE=C.UTF-8") && cLocale.contains("LANG=C") && !cLocale.contains { $0.hasPrefix("LC_ALL=") })
        #expect(env([], .zenity).contains("LC_CTYPE=C.UTF-8"))
        let kdialog = env(["QT_QPA_PLATFORMTHEME=xdgdesktopportal", "LANG=C.UTF-8"], .kdialog)
        #expect(!kdialog.contains { $0.hasPrefix("QT_QPA_PLATFORMTHEME") } && kdialog.contains("QT_ACCESSIBILITY=0"))
        #expect(env(["QT_QPA_PLATFORMTHEME=kde", "LANG=C.UTF-8"], .kdialog).contains("QT_QPA_PLATFORMTHEME=kde"))
        // GLib would print names converted from these character sets, not their bytes.
        for kind in [DesktopPresenterKind.zenity, .kdialog] {
            let glib = env(["G_FILENAME_ENCODING=ISO-8859-1", "G_BROKEN_FILENAMES=1", "LANG=C.UTF-8"], kind)
            #expect(!glib.contains { $0.hasPrefix("G_FILENAME_ENCODING=") || $0.hasPrefix("G_BROKEN_FILENAMES=") }, "\(kind)")
        }
    }

    @Test func probesOfToolsSayWhatIsMissing() {
        #expect(ToolDialogPresenter.probe(.zenity, environment: ["PATH": "/nonexistent", "DISPLAY": ":0"]).problem
            == "zenity is not installed (no zenity on PATH; the Debian package is zenity)")
        let sh = ToolDialogPresenter.locate(.zenity, environment: ["PATH": "/nonexistent:/usr/bin:/bin"])
        if sh != nil {
            #expect(ToolDialogPresenter.probe(.zenity, environment: ["PATH": "/usr/bin:/bin"]).problem
                == "zenity needs a graphical session, but neither DISPLAY nor WAYLAND_DISPLAY is set")
            #expect(ToolDialogPresenter.probe(.zenity, environment: ["PATH": "/usr/bin:/bin", "WAYLAND_DISPLAY": "wayland-0"]).isUsable)
        }
    }
}
