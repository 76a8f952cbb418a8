import WharfDBus
import WharfSystem

/// `wharf portal --check`: whether the running xdg-desktop-portal would route FileChooser calls
/// to Wharf, and if not, why and what to change. Exit 0 when it would, 1 when not.
enum PortalCheck {
    static func run(_ command: PortalCommand) -> Int32 {
        let environment = BusAddress.processEnvironment()
        let report = PortalRouting.examine(environment: environment)
        ProcessControl.writeToStandardOutput(Array(report.text.utf8))
        return report.routesToWharf ? 0 : 1
    }
}

/// What decides which FileChooser backend the portal uses, read the way xdg-desktop-portal
/// reads it: portals.conf for 1.18 and later, `UseIn=` against `XDG_CURRENT_DESKTOP` before.
struct PortalRouting {
    var routesToWharf = false
    var lines: [String] = []

    var text: String { lines.map { $0 + "\n" }.joined() }

    static func examine(environment: [String: String]) -> PortalRouting {
        var report = PortalRouting()
        report.lines.append("wharf portal --check: not implemented yet")
        return report
    }
}
