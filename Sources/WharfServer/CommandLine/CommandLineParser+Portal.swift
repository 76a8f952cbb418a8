import WharfDesktopDialogs
import WharfSystem

extension CommandLineParser {
    static func parsePortal(_ arguments: [String]) throws(UsageError) -> PortalCommand {
        var command = PortalCommand()
        var words = CommandWords(arguments, command: "portal")
        while let word = words.next() {
            switch word {
            case "--presenter":
                let value = try words.value(for: word)
                if value == "terminal" {
                    command.terminalWindow = true
                    continue
                }
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
            case "--run-dialog": command.runDialog = try words.value(for: word)
            case "--answer": command.answer = try path(try words.value(for: word), for: word)
            default: throw UsageError(message: "portal: unknown argument \(word)")
            }
        }
        return command
    }
}
