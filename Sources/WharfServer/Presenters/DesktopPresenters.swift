import WharfDBus
import WharfDesktopDialogs
import WharfDialogs
import WharfSystem

/// Why a presenter cannot serve a client.
struct PresenterUnavailable: Error, Sendable {
    var message: String
}

/// The desktop's own dialogs this server may show (the portal, zenity, kdialog: those
/// `--presenter` allows), and whether each can be shown here.
///
/// Probing starts when the server starts, on threads of its own, so that it is usually done by
/// the time a client initializes: the tools by looking them up (and a display to show them on),
/// the portal by asking it, over the session bus, for its FileChooser's version. A portal that is
/// installed but hangs (as on some bare window managers) is given ``probeTimeoutMilliseconds``
/// and then counted as unusable, so no dialog ever waits on a dead portal.
final class DesktopPresenters: Sendable {
    static let probeTimeoutMilliseconds = 1000

    let kinds: [DesktopPresenterKind]
    private let portal: PortalFileChooser?
    /// What each probe found, as it comes: ``availability()`` waits for all of them.
    private let probes = WaitableValue<[DesktopPresenterKind: DesktopPresenterProbe]>([:])

    init(kinds: [DesktopPresenterKind], environment: [String: String] = BusAddress.processEnvironment()) {
        self.kinds = kinds
        portal = kinds.contains(.portal) ? PortalFileChooser(environment: environment) : nil
        // Looking the tools up searches PATH: on a worker, not on the way to `initialize`.
        let tools = kinds.filter { $0 != .portal }
        if !tools.isEmpty {
            WorkerPool.blocking.run { [self] in record(tools.map { ToolDialogPresenter.probe($0, environment: environment) }) }
        }
        portal?.probe(timeoutMs: Self.probeTimeoutMilliseconds) { [self] probe in record([probe]) }
    }

    private func record(_ results: [DesktopPresenterProbe]) {
        probes.change { probes in for probe in results { probes[probe.kind] = probe } }
    }

    /// Every allowed desktop presenter, in the order `auto` tries them, usable or not and why;
    /// waits for the probes (at most the portal's probe time).
    func availability() -> [(DesktopPresenterKind, Result<any DesktopPresenter, PresenterUnavailable>)] {
        let deadline = Deadline(secondsFromNow: Double(Self.probeTimeoutMilliseconds + 500) / 1000)
        let count = kinds.count
        let results = probes.wait(until: deadline) { $0.count >= count ? $0 : nil } ?? probes.withValue { $0 }
        return kinds.map { kind in
            guard let probe = results[kind] else {
                return (kind, .failure(PresenterUnavailable(message: "it did not answer its probe in time")))
            }
            if let problem = probe.problem { return (kind, .failure(PresenterUnavailable(message: problem))) }
            switch kind {
            case .portal:
                guard let portal else { return (kind, .failure(PresenterUnavailable(message: "not allowed by --presenter"))) }
                return (kind, .success(portal))
            case .zenity, .kdialog:
                guard let path = probe.detail else { return (kind, .failure(PresenterUnavailable(message: "not found"))) }
                return (kind, .success(ToolDialogPresenter(kind: kind, program: Array(path.utf8))))
            }
        }
    }
}
