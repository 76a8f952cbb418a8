import WharfDesktopDialogs
import WharfJSON
import WharfServerTestSupport
import WharfDesktopTestSupport
import WharfSystem
import WharfTestSupport

/// docs/screenshots: each presenter's dialog as the `wharf` binary opens it for a client's
/// `presentImporter` (and WharfDesktopDialogs for kdialog and the save dialog), under the rig's
/// Xvfb (with openbox drawing the title bar), over a folder of sample files.
enum Screenshots {
    static func run(into directory: String) {
        let samples = FilePath.home().appending("Pictures").description
        try? Syscalls.makeDirectories(FilePath(samples)!, mode: 0o755)
        for name in ["beach.png", "harbour at dusk.jpg", "lighthouse.PNG", "notes.txt", "invoice.pdf"] {
            writeFile(FilePath(samples)!.appending(name), "x")
        }
        let filters = [DesktopDialogFilter(name: "Images", patterns: [.glob("*.png"), .glob("*.jpg"), .mime("image/*")]),
                       DesktopDialogFilter(name: "All files", patterns: [.glob("*")])]
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Import photos",
                                           message: "choose one or more images", acceptLabel: "_Import", filters: filters,
                                           currentFilter: 0, currentFolder: Array(samples.utf8))
        var ok = true
        // What a client asks of wharf, and what the person then sees.
        let importer: JSON = [
            "allowedContentTypes": ["public.image"], "allowsMultipleSelection": true,
            "options": ["title": "Import photos", "message": "choose one or more images", "confirmationLabel": "_Import",
                        "defaultDirectory": .string(samples)],
        ]
        ok = shootServer("portal", importer, title: "Import photos — choose one or more images",
                         to: directory + "/portal-gtk-open.png") { window in
            // xdg-desktop-portal-gtk 1.14 opens OpenFile in "Recent"; go to the samples as a person would.
            Desktop.gtkChoose(window, path: samples + "/")
        } && ok
        ok = shootServer("zenity", importer, title: "Import photos — choose one or more images",
                         to: directory + "/zenity-open.png") { _ in } && ok
        if let kdialog = ToolDialogPresenter.locate(.kdialog, environment: ProcessControl.environmentVariables()) {
            ok = shoot(ToolDialogPresenter(kind: .kdialog, program: kdialog), request, to: directory + "/kdialog-open.png") { _ in } && ok
        }
        let save = DesktopDialogRequest(kind: .save(currentName: Array("harbour.png".utf8), currentFile: nil), title: "Export image",
                                        filters: filters, currentFilter: 0, currentFolder: Array(samples.utf8))
        ok = shoot(PortalFileChooser(), save, to: directory + "/portal-gtk-save.png") { _ in } && ok
        if !ok { ProcessControl.exit(1) }
    }

    /// `wharf --presenter KIND` shows `params` as an importer for a client that draws no dialogs:
    /// photographed like ``shoot(_:_:to:arrange:)``, then cancelled by the client.
    static func shootServer(_ kind: String, _ params: JSON, title: String, to path: String, arrange: (String) -> Void) -> Bool {
        guard let client = try? WireClient.spawn(["--presenter", kind, "--state-dir", ":memory:"]) else {
            print("screenshots: cannot start wharf")
            return false
        }
        client.initialize(["clientInfo": ["name": "screenshots"]])
        guard let id = client.call("presentImporter", params)?["dialogId"], let window = Desktop.waitForWindow("^" + title) else {
            print("screenshots: no window for \(path)")
            return false
        }
        Desktop.waitUntilReady(window)
        arrange(window)
        photograph(path)
        _ = client.call("cancel", ["dialogId": id])
        let gone = Desktop.waitUntilGone("^" + title)
        _ = client.shutdownAndExit()
        print("screenshots: \(path) (wharf --presenter \(kind); window gone: \(gone))")
        return gone
    }

    /// Photographs the screen once it is still: two screenshots a moment apart agree (the file
    /// list and icons have loaded).
    static func photograph(_ path: String) {
        Desktop.settleTypingForRig()
        var previous: [UInt8] = []
        for _ in 0..<40 {
            guard Desktop.screenshot(path) else { break }
            let bytes = FilePath(path).flatMap(readFile) ?? []
            if bytes == previous { break }
            previous = bytes
            Desktop.pause(milliseconds: 250)
        }
    }

    /// Presents, waits for the window to be ready (and `arrange` done), photographs the screen,
    /// cancels, and checks the window went away.
    static func shoot(_ presenter: any DesktopPresenter, _ request: DesktopDialogRequest, to path: String,
                      arrange: (String) -> Void) -> Bool {
        let session = presenter.present(request) { _ in }
        guard let window = Desktop.waitForWindow("^" + request.displayTitle) else {
            print("screenshots: no window for \(path)")
            session.cancel()
            return false
        }
        Desktop.waitUntilReady(window)
        arrange(window)
        photograph(path)
        session.cancel()
        let result = session.waitForResult(seconds: 10)
        let gone = Desktop.waitUntilGone("^" + request.displayTitle)
        print("screenshots: \(path) (\(presenter.kind.rawValue); then \(String(describing: result)), window gone: \(gone))")
        return gone
    }
}
