import WharfDBus
import WharfSystem

/// A session bus connection as the portal presenter uses it: the dialogs open on it, and the
/// watch on the portal's bus name that tells them when the portal goes away.
final class PortalLink: Sendable {
    let connection: BusConnection
    private let dialogs = Locked<[String: PortalDialog]>([:])

    init(connection: BusConnection) {
        self.connection = connection
        // Subscribed before any dialog call goes out (operations run in order), so a portal
        // that dies at any point after a dialog reached it is seen.
        connection.subscribe(.nameOwnerChanged(Portal.busName)) { [weak self] message in
            guard message.body.count == 3, let oldOwner = message.body[1].stringValue, !oldOwner.isEmpty else { return }
            self?.portalLeft(oldOwner, newOwner: message.body[2].stringValue ?? "")
        }
    }

    func register(_ dialog: PortalDialog, token: String) { dialogs.withValue { $0[token] = dialog } }
    func unregister(token: String) { dialogs.withValue { $0[token] = nil } }

    /// Every dialog shown by `owner` can no longer be answered.
    private func portalLeft(_ owner: String, newOwner: String) {
        let affected = dialogs.withValue { $0.values.filter { $0.isShown(by: owner) } }
        let how = newOwner.isEmpty ? "left the session bus" : "was replaced by \(newOwner)"
        for dialog in affected {
            dialog.fail("the desktop portal (xdg-desktop-portal, \(owner)) \(how) while the dialog was open")
        }
    }

    /// The connection is gone: every dialog on it fails with `reason`.
    func lost(_ reason: String) {
        let all = dialogs.withValue { dialogs -> [PortalDialog] in
            defer { dialogs.removeAll() }
            return Array(dialogs.values)
        }
        for dialog in all { dialog.fail(reason) }
    }
}
