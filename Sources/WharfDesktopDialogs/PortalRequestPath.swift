/// The object path of the Request a portal call will create, known before the call.
///
/// Since xdg-desktop-portal 0.9 the handle is `/org/freedesktop/portal/desktop/request/SENDER/TOKEN`:
/// SENDER the caller's unique name without its leading `:` and with every `.` turned into `_`,
/// TOKEN the `handle_token` option. Knowing it in advance is what lets a client subscribe to
/// the Response signal *before* calling, so that a dialog answered at once (or a backend that
/// answers immediately) cannot send its Response before anyone listens.
public enum PortalRequestPath {
    /// `:1.42` and `wharf_3_9f2c` → `/org/freedesktop/portal/desktop/request/1_42/wharf_3_9f2c`.
    public static func path(sender: String, token: String) -> String {
        var element = sender.hasPrefix(":") ? String(sender.dropFirst()) : sender
        element = String(element.map { $0 == "." ? "_" : $0 })
        return Portal.requestPathPrefix + element + "/" + token
    }

    /// A fresh token: unique in this process (a counter) and not guessable (random bits), of
    /// the characters an object path element allows.
    public static func newToken() -> String {
        let serial = counter.withValue { $0 += 1; return $0 }
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16)
        return "wharf_\(serial)_\(random)"
    }

    private static let counter = Locked<UInt64>(0)
}

import WharfSystem
