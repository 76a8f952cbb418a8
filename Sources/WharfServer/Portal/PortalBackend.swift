import WharfDBus
import WharfSystem

/// `wharf portal`: Wharf as xdg-desktop-portal's FileChooser backend.
///
/// It owns `org.freedesktop.impl.portal.desktop.wharf` on the session bus and serves
/// `org.freedesktop.impl.portal.FileChooser` at `/org/freedesktop/portal/desktop`. Each call
/// gets an `org.freedesktop.impl.portal.Request` at its `handle` (whose `Close` ends it) and
/// becomes a ``PortalDialog`` on a thread of its own: the bus thread only reads calls and sends
/// answers, so any number of dialogs are open at once and none holds up another. A call is
/// answered when its dialog ends, however long the person takes (the frontend waits without a
/// timeout). A call that is malformed is answered at once with InvalidArgs naming the option.
final class PortalBackend: Sendable {
    static let busName = "org.freedesktop.impl.portal.desktop.wharf"
    static let objectPath = "/org/freedesktop/portal/desktop"
    static let fileChooser = "org.freedesktop.impl.portal.FileChooser"
    static let request = "org.freedesktop.impl.portal.Request"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    /// The FileChooser version whose options Wharf reads (`current_folder` for OpenFile is 4's).
    static let version: UInt32 = 4

    let connection: BusConnection
    let server: Server
    let drawing: PortalDrawing
    let daemonSocket: FilePath?
    private let logger: Logger
    /// A `WaitableValue`: stopping waits for `running` to reach 0.
    private let state = WaitableValue(State())

    private struct State {
        /// Open calls by handle, each with its Request object.
        var open: [String: (dialog: PortalDialog, object: BusSubscription)] = [:]
        /// Callers whose leaving is watched (NameOwnerChanged).
        var watched: Set<String> = []
        var stopping = false
        /// Dialogs whose threads have not yet answered their calls.
        var running = 0
    }

    init(connection: BusConnection, server: Server, drawing: PortalDrawing = .inProcess, daemonSocket: FilePath? = nil) {
        self.drawing = drawing
        self.daemonSocket = daemonSocket
        self.connection = connection
        self.server = server
        self.logger = server.logger
    }

    /// Serves the FileChooser object. Call before taking the name, so that no call to the
    /// name finds nothing there.
    func start() {
        connection.serve(path: Self.objectPath) { [self] message, pending in
            handleFileChooser(message, pending)
        }
    }

    /// Ends every open dialog (each call answered with response 2) and waits, up to
    /// `timeoutMs`, until each has been answered.
    func stop(timeoutMs: Int) {
        let dialogs = state.withValue { state -> [PortalDialog] in
            state.stopping = true
            return state.open.values.map(\.dialog)
        }
        for dialog in dialogs { dialog.close() }
        let deadline = Deadline(secondsFromNow: Double(timeoutMs) / 1000)
        _ = state.wait(until: deadline) { $0.running == 0 ? true : nil }
    }

    // MARK: Bus thread

    private func handleFileChooser(_ message: BusMessage, _ pending: BusPendingReply) -> BusMethodAnswer {
        switch (message.interface ?? Self.fileChooser, message.member ?? "") {
        case (Self.fileChooser, let member):
            guard let method = PortalCall.Method(rawValue: member) else { return .notHandled }
            let call: PortalCall
            do {
                call = try PortalCall(method: method, body: message.body)
            } catch {
                logger.warning("portal \(member) from \(message.sender ?? "?"): refused: \(error.message)")
                return .error(error)
            }
            if !call.ignored.isEmpty {
                logger.info("portal \(member) \(call.handle): unknown options ignored: \(call.ignored.joined(separator: ", "))")
            }
            return begin(call, sender: message.sender, pending: pending)
        case (Self.properties, "Get"):
            guard message.body.count == 2, message.body[0].stringValue == Self.fileChooser,
                  message.body[1].stringValue == "version"
            else {
                return .error(BusError(name: BusError.Names.unknownProperty, message: "the only property is \(Self.fileChooser).version"))
            }
            return .reply([.variant(.uint32(Self.version))])
        case (Self.properties, "GetAll"):
            let ours = message.body.first?.stringValue == Self.fileChooser
            return .reply([.vardict(ours ? [("version", .uint32(Self.version))] : [])])
        case (Self.properties, "Set"):
            return .error(BusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "version is read-only"))
        case (Self.introspectable, "Introspect"):
            return .reply([.string(PortalIntrospection.fileChooser)])
        default:
            return .notHandled
        }
    }

    private func begin(_ call: PortalCall, sender: String?, pending: BusPendingReply) -> BusMethodAnswer {
        let dialog = PortalDialog(call: call, sender: sender, server: server, drawing: drawing, daemonSocket: daemonSocket,
                                  reply: pending) { [weak self] dialog in
            self?.finished(dialog)
        }
        let refusal = state.withValue { state -> BusError? in
            if state.stopping { return BusError(name: BusError.Names.failed, message: "wharf portal is stopping") }
            if state.open[call.handle] != nil {
                return PortalCall.invalid("handle \(call.handle) is the Request object of another call still open")
            }
            let object = connection.serve(path: call.handle) { [weak dialog] message, _ in
                Self.handleRequest(message, dialog: dialog)
            }
            state.open[call.handle] = (dialog, object)
            state.running += 1
            return nil
        }
        if let refusal { return .error(refusal) }
        if let sender { watch(sender) }
        do {
            try tryStartThread { [self] in
                dialog.run()
                state.change { $0.running -= 1 }
            }
        } catch {
            logger.error("portal \(call.handle): no thread for the dialog: \(error)")
            finished(dialog)
            pending.reply([.uint32(2), .vardict([])])
            state.change { $0.running -= 1 }
        }
        return .noReply
    }

    private static func handleRequest(_ message: BusMessage, dialog: PortalDialog?) -> BusMethodAnswer {
        switch (message.interface ?? request, message.member ?? "") {
        case (request, "Close"):
            dialog?.close()
            return .reply([])
        case (properties, "GetAll"):
            return .reply([.vardict([])])
        case (introspectable, "Introspect"):
            return .reply([.string(PortalIntrospection.request)])
        default:
            return .notHandled
        }
    }

    /// The call was answered: its Request object goes.
    private func finished(_ dialog: PortalDialog) {
        let object = state.withValue { state -> BusSubscription? in
            guard let entry = state.open[dialog.call.handle], entry.dialog === dialog else { return nil }
            state.open[dialog.call.handle] = nil
            return entry.object
        }
        if let object { connection.unsubscribe(object) }
    }

    /// When the caller (the frontend) leaves the bus, its dialogs are taken down: nobody is
    /// left to hear their answers.
    private func watch(_ sender: String) {
        let first = state.withValue { $0.watched.insert(sender).inserted }
        guard first else { return }
        connection.subscribe(.nameOwnerChanged(sender)) { [weak self] signal in
            guard let self, signal.body.count == 3, signal.body[2].stringValue == "" else { return }
            let orphans = state.withValue { state -> [PortalDialog] in
                state.watched.remove(sender)
                return state.open.values.map(\.dialog).filter { $0.sender == sender }
            }
            if !orphans.isEmpty {
                logger.warning("portal: \(sender) left the bus; ending its \(orphans.count) open dialog(s)")
            }
            for dialog in orphans { dialog.close() }
        }
    }
}

/// What `Introspect` answers: the interfaces as xdg-desktop-portal's data/ files declare them.
enum PortalIntrospection {
    static let fileChooser = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.impl.portal.FileChooser">
          \(method("OpenFile"))
          \(method("SaveFile"))
          \(method("SaveFiles"))
          <property name="version" type="u" access="read"/>
         </interface>
         <interface name="org.freedesktop.DBus.Properties">
          <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
          <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg type="s" direction="out"/></method>
         </interface>
        </node>
        """

    static let request = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.impl.portal.Request">
          <method name="Close"/>
         </interface>
        </node>
        """

    private static func method(_ name: String) -> String {
        """
        <method name="\(name)"><arg type="o" name="handle" direction="in"/><arg type="s" name="app_id" direction="in"/>\
        <arg type="s" name="parent_window" direction="in"/><arg type="s" name="title" direction="in"/>\
        <arg type="a{sv}" name="options" direction="in"/><arg type="u" name="response" direction="out"/>\
        <arg type="a{sv}" name="results" direction="out"/></method>
        """
    }
}
