import Glibc
import WharfContentTypes
import WharfDBus
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// One portal call made a Wharf dialog: a client session of the backend's in-process server
/// (as `wharf pick` and `wharf save` are), so that what the person picks is checked by the
/// same engine (types, the filter in force, an existing file) and a save is a destination
/// checked and never written (``ExporterRequest/destinationOnly``).
///
/// ``run()`` waits for the person on a thread of its own; ``close()`` (the frontend's
/// `Request.Close`, the frontend gone, the backend stopping) comes from any other. The call
/// is answered exactly once, when the dialog has ended: response 0 with the results, 1 when
/// the person cancelled, 2 for anything else.
final class PortalDialog: Sendable {
    let call: PortalCall
    /// The frontend's unique name, for noticing that it went away.
    let sender: String?
    private let server: Server
    private let reply: BusPendingReply
    /// Runs just before the call is answered: its Request object goes first, so that a
    /// `Close` sent once the answer is in finds no object rather than a finished dialog.
    private let answering: @Sendable (PortalDialog) -> Void
    private let state = Locked(State())

    private struct State {
        var client: LocalClient?
        var dialogId: String?
        /// The terminal window drawing the dialog (``PortalDrawing/terminalWindow(_:wharf:)``).
        var window: Subprocess?
        var closing = false
    }

    private let drawing: PortalDrawing
    /// The daemon's socket, tried first (`auto`); nil when another presenter was named.
    private let daemonSocket: FilePath?

    init(call: PortalCall, sender: String?, server: Server, drawing: PortalDrawing, daemonSocket: FilePath?,
         reply: BusPendingReply, answering: @escaping @Sendable (PortalDialog) -> Void) {
        self.daemonSocket = daemonSocket
        self.answering = answering
        self.drawing = drawing
        self.call = call
        self.sender = sender
        self.server = server
        self.reply = reply
    }

    /// What the app is known by: remembered folders are kept per app identity.
    var clientName: String { "portal:" + (call.appID.isEmpty ? "host" : call.appID) }

    /// Runs the dialog and answers the call; returns once it is answered.
    func run() {
        let logger = server.logger
        let answer: Answer
        do {
            answer = try present()
        } catch {
            answer = .failed(error)
        }
        answering(self)
        switch answer {
        case .refused(let error):
            logger.warning("portal \(call.method.rawValue) \(call.handle): refused: \(error.message)")
            reply.fail(error)
        case .failed(let error):
            logger.warning("portal \(call.method.rawValue) \(call.handle) for \(clientName) failed: \(error.message)")
            reply.reply([.uint32(2), .vardict([])])
        case .ended(let response, let results):
            logger.info("portal \(call.method.rawValue) \(call.handle) for \(clientName): response \(response)")
            reply.reply([.uint32(response), .vardict(results)])
        }
        let client = state.withValue { state -> LocalClient? in
            defer { state.client = nil }
            return state.client
        }
        client?.close()
    }

    /// Ends the dialog from the app's side; its call is answered with response 2.
    func close() {
        let (client, dialogId, window) = state.withValue { state -> (LocalClient?, String?, Subprocess?) in
            state.closing = true
            return (state.client, state.dialogId, state.window)
        }
        // The terminal window closes, and the dialog in it with it.
        window?.signal(SIGTERM)
        guard let client, let dialogId else { return }
        // Answered after the dialog has ended (protocol/README): not on the caller's thread.
        startThread { _ = try? client.send(CancelDialogRequest(dialogId: dialogId)) }
    }

    private enum Answer {
        case ended(UInt32, [(String, BusValue)])
        /// A call Wharf's engine refused as malformed (`-32602`): answered InvalidArgs.
        case refused(BusError)
        case failed(ResponseError)
    }

    private func present() throws(ResponseError) -> Answer {
        let request: PortalRequest
        do {
            switch call.method {
            case .openFile: request = .importer(try importerRequest())
            case .saveFile, .saveFiles: request = .exporter(try exporterRequest())
            }
        } catch where error.code == .invalidParams {
            return .refused(PortalCall.invalid(error.message))
        }
        let outcome: PortalOutcome
        if let socket = daemonSocket,
           let client = PortalDaemonRoute.client(socket: socket, clientName: clientName, logger: server.logger) {
            state.withValue { $0.client = client }
            server.logger.info("portal \(call.handle): shown by the daemon's presenter connection")
            outcome = PortalSession.run(client: client, request: request) { dialogId in
                state.withValue { state -> Bool in
                    state.dialogId = dialogId
                    return state.closing
                }
            }
        } else {
            outcome = presentHere(request)
        }
        switch outcome {
        case .chosen(let uris, let filter, let choices): return .ended(0, results(uris: uris, filter: filter, choices: choices))
        case .cancelledByPerson: return .ended(1, [])
        case .ended: return .ended(2, [])
        case .refused(let message): return .refused(PortalCall.invalid(message))
        case .failed(let message): throw .internalError(message)
        }
    }

    /// Drawn by this process's presenter or in a terminal window.
    private func presentHere(_ request: PortalRequest) -> PortalOutcome {
        let outcome: PortalOutcome
        switch drawing {
        case .inProcess:
            outcome = PortalSession.run(
                server: server, clientName: clientName, request: request,
                started: { client in state.withValue { $0.client = client } },
                presented: { dialogId in
                    state.withValue { state -> Bool in
                        state.dialogId = dialogId
                        return state.closing
                    }
                })
        case .terminalWindow(let terminal, let wharf):
            outcome = PortalTerminalWindow(terminal: terminal, wharf: wharf, logger: server.logger).run(
                request: request, clientName: clientName, title: call.title.isEmpty ? "Wharf" : call.title,
                stateDirectory: server.options.stateDirectory
            ) { window in
                state.withValue { state -> Bool in
                    state.window = window
                    return state.closing
                }
            }
        }
        return outcome
    }

    /// `filter` indexes ``namedFilters`` (nil: the dialog had none, and the filter in force is
    /// reported); `choices` the person's values by id (the others: their defaults).
    private func results(uris: [String], filter: Int?, choices: [String: String]) -> [(String, BusValue)] {
        var results: [(String, BusValue)] = [("uris", .strings(uris))]
        if !call.choices.isEmpty {
            results.append(("choices", .array(element: "(ss)", call.choices.map {
                .structure([.string($0.id), .string(choices[$0.id] ?? $0.answer)])
            })))
        }
        let named = namedFilters.filters
        if let filter, named.indices.contains(filter) {
            results.append(("current_filter", named[filter].busValue))
        } else if call.method != .saveFiles, let filter = call.filterInForce {
            results.append(("current_filter", filter.busValue))
        }
        // The person chose the file for the app to work on, as in GTK's dialog: an app in a
        // sandbox may write it back (the document store's grant; Wharf grants nothing here).
        if call.method == .openFile { results.append(("writable", .boolean(true))) }
        return results
    }

    // MARK: The dialog's request

    private var options: DialogOptionsParams {
        DialogOptionsParams(
            defaultDirectory: (call.currentFile?.directory ?? call.currentFolder)?.url,
            title: call.title.isEmpty ? nil : call.title,
            confirmationLabel: call.acceptLabelText,
            customizationId: "portal",
            choices: call.choices.map(\.dialogChoice))
    }

    /// The filters the person switches between (OpenFile of files): `filters`, and
    /// `current_filter` too when it is not one of them; `current` the one selected at first.
    private var namedFilters: (filters: [PortalFilter], current: Int) {
        guard call.method == .openFile, !call.directory else { return ([], 0) }
        var filters = call.filters
        guard let current = call.currentFilter else { return (filters, 0) }
        if let index = filters.firstIndex(of: current) { return (filters, index) }
        filters.append(current)
        return (filters, filters.count - 1)
    }

    /// `parent_window` as Wharf's presenters take it: `x11:XID` for zenity's and kdialog's
    /// `--attach`; a Wayland handle means nothing to them. A dialog that is not modal is not
    /// attached.
    private var parentWindow: String? {
        guard call.modal, call.parentWindow.hasPrefix("x11:") else {
            if call.parentWindow.hasPrefix("wayland:") {
                server.logger.info("portal \(call.handle): parent window \(call.parentWindow) ignored: no presenter can attach to a Wayland window")
            }
            return nil
        }
        return call.parentWindow
    }

    private func importerRequest() throws(ResponseError) -> PresentImporterRequest {
        var options = options
        // A file, not a folder, unless the app asked for folders: `public.data`, not `public.item`.
        var allowed = ["public.data"]
        if call.directory {
            allowed = ["public.folder"]
        } else {
            let (filters, current) = namedFilters
            let types = ContentTypeScope(registry: .system)
            let rules = filters.map { PortalFilterRule($0, types: types) }
            for pattern in rules.flatMap(\.ignored) {
                server.logger.info("portal \(call.handle): filter pattern \(pattern) matches no content type Wharf knows")
            }
            // One filter's MIME types are the dialog's types too (what every presenter shows as
            // its filter); with several, the person switches between them. Either way the
            // engine enforces the one selected (options.filters), naming it when it refuses.
            if rules.count == 1 { allowed = rules[0].allowedContentTypes }
            if !filters.isEmpty {
                options.filters = zip(filters, rules).enumerated().map { index, pair in
                    NamedFilterParams(name: pair.0.name.isEmpty ? "Filter \(index + 1)" : pair.0.name, predicate: pair.1.predicate)
                }
                options.currentFilter = Int64(current)
            }
        }
        return PresentImporterRequest(allowedContentTypes: allowed, allowsMultipleSelection: call.multiple,
                                      options: options, parentWindow: parentWindow)
    }

    private func exporterRequest() throws(ResponseError) -> PresentExporterRequest {
        let names: [String]
        if call.method == .saveFiles {
            names = call.files
        } else if let file = call.currentFile {
            guard let name = String(validating: file.lastComponent, as: UTF8.self) else {
                throw .invalidParams("option current_file: Wharf suggests names in UTF-8, and this one is not")
            }
            names = [name]
        } else {
            names = [call.currentName.flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled"]
        }
        // SaveFile's name is the person's: it must match the filter in force. SaveFiles' names
        // are the app's, and it has no filters.
        var options = options
        if call.method == .saveFile, let filter = call.filterInForce {
            let rule = PortalFilterRule(filter, types: ContentTypeScope(registry: .system))
            for pattern in rule.ignored {
                server.logger.info("portal \(call.handle): filter pattern \(pattern) matches no content type Wharf knows")
            }
            options.urlEnabled = rule.destinationRule
        }
        // public.data: any bytes, and no extension added to the name the app suggested.
        return PresentExporterRequest(
            documents: names.map { ExportDocumentParams(filename: $0, writableContentTypes: ["public.data"]) },
            options: options, parentWindow: parentWindow, destinationOnly: true,
            savesIntoFolder: call.method == .saveFiles ? true : nil)
    }
}
