/// Choosing among the desktop presenters, as `--presenter auto` does: the portal, then zenity,
/// then kdialog, the first usable one.
public enum DesktopPresenters {
    /// Probes all three: the portal within `timeoutMs` (waits: never call it holding a lock
    /// a portal callback needs), zenity and kdialog at once.
    public static func probeAll(portal: PortalFileChooser, timeoutMs: Int,
                                environment: [String: String]) -> [DesktopPresenterProbe] {
        [portal.probeAndWait(timeoutMs: timeoutMs),
         ToolDialogPresenter.probe(.zenity, environment: environment),
         ToolDialogPresenter.probe(.kdialog, environment: environment)]
    }

    /// The first usable presenter of `probes` (in their order), ready to present.
    public static func first(usable probes: [DesktopPresenterProbe], portal: PortalFileChooser,
                             environment: [[UInt8]] = ChildEnvironment.current()) -> (any DesktopPresenter)? {
        guard let probe = probes.first(where: \.isUsable) else { return nil }
        switch probe.kind {
        case .portal:
            return portal
        case .zenity, .kdialog:
            guard let path = probe.detail else { return nil }
            return ToolDialogPresenter(kind: probe.kind, program: Array(path.utf8), environment: environment)
        }
    }

    /// The sentence for `noPresenter`: each presenter and why it cannot be used, and what to do.
    public static func noPresenterMessage(_ probes: [DesktopPresenterProbe]) -> String {
        let reasons = probes.map { "\($0.kind.rawValue): \($0.problem ?? "usable")" }.joined(separator: "; ")
        return "no desktop dialog can be shown (\(reasons)). Run inside a desktop session with xdg-desktop-portal and a "
            + "backend (xdg-desktop-portal-gtk, -kde or -gnome), or install zenity or kdialog; or let the client "
            + "present dialogs itself (presentsDialogs) or use --presenter script:FILE."
    }
}
