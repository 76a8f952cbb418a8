import WharfSystem

/// The environment a dialog program runs in: this process's, as bytes, with what could hang
/// it, redirect it or change what it prints taken out.
///
/// - `NO_AT_BRIDGE=1`, `GTK_A11Y=none`, `QT_ACCESSIBILITY=0`: no accessibility bus. A GTK or
///   Qt program waits on the AT-SPI bus at start-up, and where that bus is broken (no session,
///   a dead daemon) the dialog never appears.
/// - `GTK_USE_PORTAL=0` for zenity (its `GtkFileChooserNative` would otherwise go through the
///   portal, the very thing zenity stands in for), and `QT_QPA_PLATFORMTHEME` removed for
///   kdialog when it names the portal (`xdgdesktopportal`, `flatpak`), for the same reason.
/// - every `ZENITY_*` variable removed: `ZENITY_OK`, `ZENITY_CANCEL`, `ZENITY_ESC`,
///   `ZENITY_ERROR`, `ZENITY_TIMEOUT` renumber zenity's exit codes.
/// - `G_FILENAME_ENCODING` and `G_BROKEN_FILENAMES` removed: they tell GLib that file names are
///   in another character set (or the locale's), so zenity would convert the bytes of a name
///   before printing it and the path read back would not be the file's.
/// - a character set that can carry the paths: GLib converts what it prints to the locale's
///   character set, so in the C locale every non-ASCII byte would become `?`. When the
///   effective `LC_CTYPE` is not UTF-8, `LC_CTYPE=C.UTF-8` is set (and an `LC_ALL`, which
///   would override it, is moved to `LANG`), leaving the language of the dialog alone.
public enum ChildEnvironment {
    public static func build(for kind: DesktopPresenterKind, from base: [[UInt8]] = current()) -> [[UInt8]] {
        var removed: Set<String> = ["NO_AT_BRIDGE", "GTK_A11Y", "QT_ACCESSIBILITY", "G_FILENAME_ENCODING", "G_BROKEN_FILENAMES"]
        var added: [(String, String)] = [("NO_AT_BRIDGE", "1"), ("GTK_A11Y", "none"), ("QT_ACCESSIBILITY", "0")]
        let variables = Dictionary(base.compactMap(split), uniquingKeysWith: { first, _ in first })
        switch kind {
        case .zenity, .portal:
            removed.insert("GTK_USE_PORTAL")
            added.append(("GTK_USE_PORTAL", "0"))
        case .kdialog:
            if let theme = variables["QT_QPA_PLATFORMTHEME"].map({ String(decoding: $0, as: UTF8.self) }),
               theme.contains(ascii: "portal") || theme == "flatpak" {
                removed.insert("QT_QPA_PLATFORMTHEME")
            }
        }
        func text(_ name: String) -> String? {
            guard let value = variables[name], !value.isEmpty else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
        let ctype = text("LC_ALL") ?? text("LC_CTYPE") ?? text("LANG") ?? "C"
        let lowered = ctype.lowercased()
        if !(lowered.contains(ascii: "utf-8") || lowered.contains(ascii: "utf8")) {
            removed.insert("LC_CTYPE")
            added.append(("LC_CTYPE", "C.UTF-8"))
            if let all = text("LC_ALL") {
                removed.formUnion(["LC_ALL", "LANG"])
                added.append(("LANG", all))
            }
        }
        var entries = base.filter { entry in
            guard let (name, _) = split(entry) else { return false }
            return !removed.contains(name) && !name.hasPrefix("ZENITY_")
        }
        entries += added.map { Array(($0.0 + "=" + $0.1).utf8) }
        return entries
    }

    /// This process's environment, entry by entry, as bytes.
    public static func current() -> [[UInt8]] { ProcessControl.environmentEntries() }

    private static func split(_ entry: [UInt8]) -> (String, [UInt8])? {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), equals > 0 else { return nil }
        return (String(decoding: entry[..<equals], as: UTF8.self), Array(entry[(equals + 1)...]))
    }
}
