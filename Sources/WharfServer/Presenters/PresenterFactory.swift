import WharfDesktopDialogs
import WharfDialogs
import WharfFileManagers
import WharfProtocol
import WharfSystem
import WharfTerminal

/// `--presenter`: who shows dialogs to a client that does not draw its own.
public enum PresenterSetting: Sendable, Equatable {
    /// The desktop's own dialog: the portal, else zenity, else kdialog.
    case auto
    /// Only this desktop presenter.
    case desktop(DesktopPresenterKind)
    /// The first usable of these, in this order (`wharf portal`'s `auto`, which must never be
    /// the portal: it would come back to Wharf).
    case firstUsable([DesktopPresenterKind])
    /// Answer every dialog from a script of steps (each client gets its own copy).
    case script(FilePath)
    /// Draw dialogs on the controlling terminal (`/dev/tty`). Never chosen unless named: an
    /// editor that spawned the server owns its terminal.
    case terminal
    /// `wharf pick` and `wharf save`: the desktop's dialog when one is usable, else the
    /// controlling terminal.
    case desktopOrTerminal
    /// A terminal file manager (fzf, lf, nnn, ranger, vifm, yazi) on the controlling terminal.
    case fileManager(FileManagerKind)
}

/// The presenter one client's dialogs get, chosen at `initialize`, and what `initialize`
/// reports about the others.
struct PresenterChoice: Sendable {
    var presenter: (any DialogPresenter)?
    /// Every presenter this client could have had.
    var usable: [String]
    /// Why each of the others cannot serve it.
    var unavailable: [String: String]
    /// The presenters `whyNone` names, in the order it names them; none before `initialize`.
    var considered: [String]
    /// `wharf pick` and `wharf save`: `whyNone` speaks to a person at a shell, not to a client.
    var forShellUser = false

    /// For `noPresenter`: why this client has none, and what to do. Composed when asked, not
    /// at every `initialize`: it is rarely wanted, and `joined` meeting its generic types for
    /// the first time is a large part of a start-up (bench/notes/40).
    var whyNone: String {
        if considered.isEmpty { return "the client is not initialized" }
        let reasons = considered.compactMap { name in unavailable[name].map { "\(name): \($0)" } }
        if forShellUser {
            return """
                no dialog can be shown here. Tried: \(reasons.joined(separator: "; ")). Run it from a terminal whose TERM \
                names it (not dumb; over ssh, `ssh -t` gives the command one), or in a desktop session with xdg-desktop-portal, zenity or kdialog \
                installed (apt install zenity); or pass --presenter script:FILE to answer from a script
                """
        }
        return """
            no presenter can show this dialog (\(reasons.joined(separator: "; "))). Run wharf in a desktop session \
            (xdg-desktop-portal, zenity or kdialog), say "capabilities": {"presentsDialogs": true} in initialize and draw \
            the dialog yourself (presenter/show), start wharf with --presenter terminal to draw dialogs on its \
            terminal, or with --presenter script:FILE
            """
    }

    /// What `initialize` reports: nil when nobody can show a dialog now (a daemon client with
    /// no presenter connection registered and no presenter of the daemon's own).
    var name: String? {
        if let routed = presenter as? ConnectionPresenter, !routed.isAvailable { return nil }
        return presenter?.name
    }

    static let none = PresenterChoice(presenter: nil, usable: [], unavailable: [:], considered: [])
}

/// The one place a client's presenter is chosen, from the command line (`--presenter`) and
/// what the client said it can do (`capabilities.presentsDialogs`, `prefersDesktopDialogs`):
///
/// 1. a client that draws its own dialogs gets them (`frontend`), unless it prefers the
///    desktop's and one is usable;
/// 2. with `--presenter script:FILE`, the script;
/// 3. otherwise the desktop's dialog or the terminal file manager that `--presenter` names, or
///    with `auto` the first usable of the portal, zenity and kdialog (never a terminal: an
///    editor that started the server owns its terminal); with `terminal`, the controlling
///    terminal, and for `wharf pick` and `wharf save` the desktop's first, else the terminal;
/// 4. nobody: `present…` answers `noPresenter`, naming why each presenter cannot serve.
final class PresenterFactory: Sendable {
    let setting: PresenterSetting
    /// The script's steps, read once at start-up; each client plays its own copy.
    private let script: [ScriptStep]?
    private let desktop: DesktopPresenters

    /// Whether `whyNone` speaks to a person at a shell (`wharf pick`, `wharf save`).
    private let explainsToShellUser: Bool

    init(setting: PresenterSetting, explainsToShellUser: Bool = false, logger: Logger) throws(StartupError) {
        self.setting = setting
        self.explainsToShellUser = explainsToShellUser
        switch setting {
        case .auto: desktop = DesktopPresenters(kinds: DesktopPresenterKind.allCases)
        case .desktop(let kind): desktop = DesktopPresenters(kinds: [kind])
        case .firstUsable(let kinds): desktop = DesktopPresenters(kinds: kinds)
        case .script: desktop = DesktopPresenters(kinds: [])
        case .terminal, .fileManager: desktop = DesktopPresenters(kinds: [])
        case .desktopOrTerminal: desktop = DesktopPresenters(kinds: DesktopPresenterKind.allCases)
        }
        if case .script(let file) = setting {
            self.script = try ScriptFile.load(file)
        } else {
            self.script = nil
        }
    }

    func choose(for capabilities: ClientCapabilities, session: ClientSession) -> PresenterChoice {
        var usable: [String] = []
        var unavailable: [String: String] = [:]
        var candidates: [any DialogPresenter] = []
        var frontend: (any DialogPresenter)? = capabilities.presentsDialogs ? session.frontend : nil
        if let sandbox = session.origin.sandbox, frontend != nil {
            // A sandboxed app that drew its own dialogs would choose its own files: Wharf would
            // grant it whatever it named.
            frontend = nil
            unavailable["frontend"] = "\(sandbox): its dialogs are shown by the daemon's presenter, never by itself"
        } else if frontend != nil {
            usable.append("frontend")
        } else {
            unavailable["frontend"] = "the client did not say capabilities.presentsDialogs in initialize"
        }
        if let script {
            let presenter = ScriptPresenter(steps: script)
            usable.append(presenter.name)
            candidates.append(presenter)
        }
        if case .fileManager(let kind) = setting {
            // Usable as far as anyone can tell before a dialog: whether the tool is installed and
            // there is a terminal is found out when one is shown, and a dialog fails saying which.
            usable.append(kind.rawValue)
            candidates.append(FileManagerPresenter(kind: kind, types: { [weak session] in session?.contentTypes }))
        }
        for (kind, availability) in desktop.availability() {
            switch availability {
            case .success(let presenter):
                usable.append(kind.rawValue)
                candidates.append(DesktopDialogPresenter(presenter, types: { [weak session] in session?.contentTypes }))
            case .failure(let reason):
                unavailable[kind.rawValue] = reason.message
            }
        }
        var considered = ["connection"] + desktop.kinds.map(\.rawValue)
        if setting == .terminal || setting == .desktopOrTerminal {
            // Looked at only when named: the terminal is the person's, not the server's.
            let environment = ProcessControl.environmentVariables()
            considered.append("terminal")
            if let problem = TerminalSession.problem(environment: environment) {
                unavailable["terminal"] = problem.message
            } else {
                usable.append("terminal")
                candidates.append(TerminalPresenter(environment: environment, types: { [weak session] in session?.contentTypes }))
            }
        }
        let chosen: (any DialogPresenter)?
        if let frontend, !capabilities.prefersDesktopDialogs {
            chosen = frontend
        } else if session.server.options.acceptsPresenterConnections {
            // The daemon: the presenter connection when one is registered, else our own choice.
            if session.server.hub.hasPresenter {
                usable.insert("connection", at: 0)
            } else {
                unavailable["connection"] = "no connection has registered as the daemon's presenter (\"role\": \"presenter\")"
            }
            let fallback = candidates.first
            if fallback == nil, let frontend {
                chosen = frontend
            } else {
                chosen = ConnectionPresenter(hub: session.server.hub, fallback: fallback, client: session.identityInfo,
                                             queue: session.dialogWork, budget: session.origin.presenterBudget)
            }
        } else if let frontend, !candidates.contains(where: { $0 is DesktopDialogPresenter || $0 is TerminalPresenter || $0 is FileManagerPresenter }) {
            // It prefers the desktop's dialogs, but none is usable here (`--presenter script:`
            // allows none): its own, as rule 1 says, not the script.
            chosen = frontend
        } else {
            chosen = candidates.first ?? frontend
        }
        return PresenterChoice(presenter: chosen, usable: usable, unavailable: unavailable,
                               considered: explainsToShellUser ? considered.filter { $0 != "connection" } : considered + ["frontend"],
                               forShellUser: explainsToShellUser)
    }
}
