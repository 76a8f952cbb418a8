import WharfDesktopDialogs
import WharfSystem

/// `wharf portal`: serve xdg-desktop-portal's FileChooser backend, or (`--check`) say whether
/// the running portal would route FileChooser calls to it.
public struct PortalCommand: Sendable, Equatable {
    /// Who draws the dialogs: `auto` (zenity, else kdialog: never the portal, which would
    /// come back here), `zenity`, `kdialog` or `script:FILE`.
    public var presenter = PresenterSetting.firstUsable(PortalCommand.autoPresenters)
    /// `--terminal`: the terminal emulator a terminal presenter's window opens in.
    public var terminal: String?
    public var stateDirectory: FilePath?
    public var logLevel = Logger.Level.warning
    public var check = false
    /// `--presenter terminal`: the terminal picker, in a terminal window of its own.
    public var terminalWindow = false
    /// `--run-dialog REQUEST --answer FILE`: one dialog, run inside a terminal window.
    public var runDialog: String?
    public var answer: FilePath?

    public static let autoPresenters: [DesktopPresenterKind] = [.zenity, .kdialog]

    public init() {}
}
