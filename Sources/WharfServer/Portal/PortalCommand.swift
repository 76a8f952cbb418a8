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

    public static let autoPresenters: [DesktopPresenterKind] = [.zenity, .kdialog]

    public init() {}
}

extension CommandLineParser {
    static func parsePortal(_ arguments: [String]) throws(UsageError) -> PortalCommand {
        var command = PortalCommand()
        var words = CommandWords(arguments, command: "portal")
        while let word = words.next() {
            switch word {
            case "--presenter":
                let value = try words.value(for: word)
                switch try presenterSetting(value) {
                case .auto: command.presenter = .firstUsable(PortalCommand.autoPresenters)
                case .desktop(.portal):
                    throw UsageError(message: "portal: --presenter portal would send every dialog back to wharf portal; "
                        + "choose auto, zenity, kdialog or script:FILE")
                case let setting: command.presenter = setting
                }
            case "--terminal": command.terminal = try words.value(for: word)
            case "--state-dir": command.stateDirectory = try path(try words.value(for: word), for: word)
            case "--log-level":
                let value = try words.value(for: word)
                guard let level = Logger.Level(name: value) else {
                    throw UsageError(message: "portal: --log-level: expected error, warning, info or debug, got \(value)")
                }
                command.logLevel = level
            case "--check": command.check = true
            default: throw UsageError(message: "portal: unknown argument \(word)")
            }
        }
        return command
    }
}
