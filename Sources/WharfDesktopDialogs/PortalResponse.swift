import WharfDBus

/// The Request's `Response(u response, a{sv} results)` signal, as a dialog result.
///
/// 0 is success: `uris` holds `file://` URIs, decoded to exact path bytes. 1 is the human's
/// Cancel. 2 is "ended some other way", which xdg-desktop-portal-gtk answers when the human
/// presses Escape or closes the window (GTK's own portal client treats 2 the same way), so it
/// is a cancellation too. Anything else, or a success without usable URIs, fails with the reason.
public enum PortalResponse {
    public static func result(code: UInt32, results: [String: BusValue], request: DesktopDialogRequest) -> DesktopDialogResult {
        switch code {
        case 0:
            break
        case 1, 2:
            return .cancelled(.user)
        default:
            return .failed("the desktop portal ended the dialog with the unknown response \(code)")
        }
        guard let uris = results["uris"]?.unwrapped.arrayItems?.compactMap(\.stringValue) else {
            return .failed("the desktop portal answered without the chosen files (no \"uris\")")
        }
        var paths: [[UInt8]] = []
        for uri in uris {
            guard let path = FileURIBytes.path(fromURI: uri) else {
                return .failed("the desktop portal returned \(uri), which is not a local file")
            }
            paths.append(path)
        }
        guard !paths.isEmpty else { return .failed("the desktop portal answered success but chose nothing") }
        var choice = DesktopDialogChoice(paths: paths)
        switch request.kind {
        case .open:
            break
        case .save:
            // The portal's save dialog asks "Replace?" itself (xdg-desktop-portal-gtk sets GTK's
            // do_overwrite_confirmation; the KDE and GNOME backends ask too).
            choice.overwriteConfirmed = true
        case .saveFiles(let files):
            guard paths.count == files.count else {
                return .failed("the desktop portal returned \(paths.count) places for \(files.count) files")
            }
            choice.folder = parent(of: paths[0])
        }
        if let selected = results["current_filter"]?.unwrapped { choice.selectedFilter = filterIndex(selected, in: request.filters) }
        return .chosen(choice)
    }

    /// Which of `filters` the portal's `current_filter` names. By name; among filters of the
    /// same name (two types described alike), the one sent exactly as the portal returns it
    /// (GTK's backend returns the filter as it was sent), else the first. The first alone was
    /// the wrong one when the human chose the second, and the file was saved as the first type.
    static func filterIndex(_ selected: BusValue, in filters: [DesktopDialogFilter]) -> Int? {
        guard case .structure(let fields) = selected, let name = fields.first?.stringValue else { return nil }
        let named = filters.indices.filter { filters[$0].name == name }
        return named.first { PortalCall.filter(filters[$0]) == selected } ?? named.first
    }

    /// `/a/b/c` → `/a/b`; `/c` → `/`.
    static func parent(of path: [UInt8]) -> [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash])
    }
}
