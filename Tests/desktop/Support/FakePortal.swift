import WharfDBus
import WharfSystem

/// A stand-in for xdg-desktop-portal on a private bus: owns `org.freedesktop.portal.Desktop`,
/// answers the FileChooser version, records every FileChooser call and Close, and answers a
/// dialog as told. It computes request paths itself, by the rule the portal documents, so a
/// client that predicts them differently would miss its Response.
public final class FakePortal: Sendable {
    public enum Dialogs: Sendable {
        /// Emit Response(code, results) at once, *before* the method reply (the race a client
        /// must survive by subscribing first).
        case answer(code: UInt32, results: [(String, BusValue)])
        /// Keep the dialog open until Close (or until the portal goes away).
        case hold
        /// As `hold`, but answer the call (with the request handle) only after this long: a
        /// portal that is slow to put its window up.
        case holdAfter(milliseconds: Int)
        /// Never reply to anything (a hanging portal).
        case hang
    }

    public let connection: BusConnection
    private let recorded = Locked<(calls: [BusMessage], closes: [String])>(([], []))

    public var calls: [BusMessage] { recorded.withValue { $0.calls } }
    public var closes: [String] { recorded.withValue { $0.closes } }

    /// - Parameters:
    ///   - fileChooser: false plays a portal with no FileChooser backend.
    public init(bus: PrivateBus, dialogs: Dialogs, version: UInt32 = 4, fileChooser: Bool = true) throws {
        connection = try bus.connect()
        let recorded = self.recorded
        let connection = self.connection
        connection.export(path: "/org/freedesktop/portal/desktop") { call in
            if case .hang = dialogs { return .noReply }
            if call.interface == "org.freedesktop.DBus.Properties" && call.member == "Get" {
                guard fileChooser, call.body.first?.stringValue == "org.freedesktop.portal.FileChooser" else {
                    return .error(BusError(name: BusError.Names.invalidArgs, message: "No such interface “org.freedesktop.portal.FileChooser”"))
                }
                return .reply([.variant(.uint32(version))])
            }
            guard fileChooser, call.interface == "org.freedesktop.portal.FileChooser" else { return .notHandled }
            recorded.withValue { $0.calls.append(call) }
            let token = (call.body.count == 3 ? call.body[2].dictionary?["handle_token"]?.unwrapped.stringValue : nil) ?? "t"
            var sender = call.sender ?? ""
            sender.removeFirst()
            let handle = "/org/freedesktop/portal/desktop/request/" + sender.split(separator: ".").joined(separator: "_") + "/" + token
            switch dialogs {
            case .answer(let code, let results):
                let response = BusSignal(path: handle, interface: "org.freedesktop.portal.Request", member: "Response",
                                         body: [.uint32(code), .vardict(results)])
                return .signalsThenReply([response], [.objectPath(handle)])
            case .hold, .holdAfter, .hang:
                connection.export(path: handle) { close in
                    guard close.member == "Close" else { return .notHandled }
                    recorded.withValue { $0.closes.append(handle) }
                    return .reply([])
                }
                if case .holdAfter(let delay) = dialogs { ProcessControl.sleep(milliseconds: delay) }
                return .reply([.objectPath(handle)])
            }
        }
        guard try connection.requestName("org.freedesktop.portal.Desktop").get() else {
            throw BusError(name: "test", message: "the fake portal could not own org.freedesktop.portal.Desktop")
        }
    }

    /// The options of the `index`th call, as a dictionary.
    public func options(_ index: Int = 0) -> [String: BusValue] {
        let body = calls[index].body
        return body.count == 3 ? body[2].dictionary?.mapValues(\.unwrapped) ?? [:] : [:]
    }
}
