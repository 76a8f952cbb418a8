/// Something that shows desktop file dialogs: the portal (``PortalFileChooser``), zenity or
/// kdialog (``ToolDialogPresenter``).
///
/// `present` returns at once and never calls `completion` on the caller's thread, so it may
/// be called with the caller's lock held (as `DialogPresenter.show` is). `completion` runs
/// exactly once, on a thread of the presenter's.
public protocol DesktopPresenter: Sendable {
    var kind: DesktopPresenterKind { get }
    func present(_ request: DesktopDialogRequest, completion: @escaping @Sendable (DesktopDialogResult) -> Void) -> DesktopDialogSession
    /// Asks ``DesktopReplaceQuestion``: `completion` gets `.chosen` (with `overwriteConfirmed`)
    /// to replace, `.cancelled(.user)` to choose another folder, otherwise as `present`. Nil when
    /// this presenter has no question to ask with (the portal has none).
    func askToReplace(_ question: DesktopReplaceQuestion, completion: @escaping @Sendable (DesktopDialogResult) -> Void) -> DesktopDialogSession?
}

extension DesktopPresenter {
    public func askToReplace(_ question: DesktopReplaceQuestion, completion: @escaping @Sendable (DesktopDialogResult) -> Void) -> DesktopDialogSession? {
        nil
    }
}

/// The three desktop presenters, in the order `auto` tries them.
public enum DesktopPresenterKind: String, Sendable, CaseIterable {
    case portal, zenity, kdialog

    /// How a person would name it in a sentence.
    public var displayName: String {
        switch self {
        case .portal: return "the desktop portal (xdg-desktop-portal)"
        case .zenity: return "zenity"
        case .kdialog: return "kdialog"
        }
    }
}
