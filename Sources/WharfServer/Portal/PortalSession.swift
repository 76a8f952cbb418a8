import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// Who draws a portal call's dialog: a presenter of the backend's own in-process server, or the
/// terminal picker in a new terminal window (`wharf portal --run-dialog` inside it).
enum PortalDrawing: Sendable {
    case inProcess
    case terminalWindow(PortalTerminal, wharf: [UInt8])
}

/// The Wharf dialog a portal call asks for.
enum PortalRequest: Sendable {
    case importer(PresentImporterRequest)
    case exporter(PresentExporterRequest)

    var method: String {
        switch self {
        case .importer: PresentImporterRequest.method
        case .exporter: PresentExporterRequest.method
        }
    }

    var params: JSON {
        switch self {
        case .importer(let request): request.json
        case .exporter(let request): request.json
        }
    }

    init(method: String, params: JSON) throws(ProtocolError) {
        switch method {
        case PresentImporterRequest.method: self = .importer(try PresentImporterRequest.parse(params).0)
        case PresentExporterRequest.method: self = .exporter(try PresentExporterRequest.parse(params).0)
        default: throw ProtocolError("a portal dialog is presentImporter or presentExporter, not \(method)")
        }
    }
}

/// How a portal call's dialog ended.
enum PortalOutcome: Sendable, Equatable {
    /// The person chose: these `file://` URIs, under the named filter at `filter` (an index
    /// into the request's `options.filters`), with these choice values by id.
    case chosen([String], filter: Int? = nil, choices: [String: String] = [:])
    /// The person cancelled (response 1).
    case cancelledByPerson
    /// It ended otherwise without a choice (`Request.Close`, a timeout, the presenter gone).
    case ended(String)
    /// The engine refused the request as malformed (InvalidArgs).
    case refused(String)
    /// It failed (a refused pick the presenter could not retry, no presenter, …).
    case failed(String)

    /// As the answer file of ``PortalTerminalWindow`` holds it.
    var json: JSON {
        switch self {
        case .chosen(let uris, let filter, let choices):
            ["outcome": "chosen", "uris": .array(uris.map(JSON.string)), "filter": filter.map { .int(Int64($0)) } ?? .null,
             "choices": choiceValuesJSON(choices)]
        case .cancelledByPerson: ["outcome": "cancelled"]
        case .ended(let why): ["outcome": "ended", "message": .string(why)]
        case .refused(let why): ["outcome": "refused", "message": .string(why)]
        case .failed(let why): ["outcome": "failed", "message": .string(why)]
        }
    }

    init?(json: JSON) {
        let message = json["message"]?.stringValue ?? ""
        switch json["outcome"]?.stringValue {
        case "chosen":
            guard case .array(let items)? = json["uris"] else { return nil }
            var choices: [String: String] = [:]
            for member in json["choices"]?.objectValue?.members ?? [] { choices[member.key] = member.value.stringValue }
            self = .chosen(items.compactMap(\.stringValue), filter: json["filter"]?.intValue.map { Int($0) }, choices: choices)
        case "cancelled": self = .cancelledByPerson
        case "ended": self = .ended(message)
        case "refused": self = .refused(message)
        case "failed": self = .failed(message)
        default: return nil
        }
    }
}

/// One dialog as a client session of `server` (as `wharf pick` runs one): initialize as
/// `clientName`, present, wait for the ending.
enum PortalSession {
    /// `started` hears of the client as soon as it exists (to close it, once the call is
    /// answered: closing waits for the session's end, which the answer need not), and
    /// `presented` of the dialog once it is presented; it answers whether the dialog is already
    /// to be closed (a `Close` that came meanwhile).
    static func run(server: Server, clientName: String, request: PortalRequest,
                    started: (LocalClient) -> Void, presented: (String) -> Bool) -> PortalOutcome {
        let client: LocalClient
        do {
            client = try LocalClient(server: server)
        } catch {
            return .failed("cannot start the dialog's session: \(error)")
        }
        started(client)
        do {
            _ = try client.send(InitializeRequest(clientInfo: ClientInfo(name: clientName)))
        } catch {
            return .failed(error.message)
        }
        return run(client: client, request: request, presented: presented)
    }

    /// The dialog, by an initialized `client`.
    static func run(client: LocalClient, request: PortalRequest, presented: (String) -> Bool) -> PortalOutcome {
        let dialogId: String
        do {
            switch request {
            case .importer(let importer): dialogId = try client.send(importer).dialogId
            case .exporter(let exporter): dialogId = try client.send(exporter).dialogId
            }
        } catch where error.code == .invalidParams {
            return .refused(error.message)
        } catch {
            return .failed(error.message)
        }
        if presented(dialogId) { _ = try? client.send(CancelDialogRequest(dialogId: dialogId)) }
        switch client.ending(of: dialogId) {
        case .completed(let completed):
            switch completed.outcome {
            case .files(let urls, _):
                return .chosen(urls, filter: completed.filter.map { Int($0) }, choices: completed.choices ?? [:])
            case .failure(let failure): return .failed("the dialog failed: \(failure.message)")
            }
        case .cancelled(let cancelled):
            return cancelled.reason == "user" ? .cancelledByPerson : .ended("the dialog ended: \(cancelled.reason)")
        case .lost:
            return .failed("the dialog ended without an answer")
        }
    }
}

/// The daemon's presenter connection (`wharf --listen`, one registered with `"role":
/// "presenter"`, such as an editor drawing every app's dialogs): `auto`'s first choice.
enum PortalDaemonRoute {
    /// A session of the daemon at `socket`, initialized as `clientName`, when a presenter
    /// connection is registered there; nil when no daemon listens or none is registered (the
    /// daemon's own presenters could be the portal, which would send the dialog back here).
    static func client(socket: FilePath, clientName: String, logger: Logger) -> LocalClient? {
        guard let connected = try? UnixSocket.connect(to: socket),
              let client = try? LocalClient(socket: connected, logger: logger)
        else { return nil }
        guard let result = try? client.send(InitializeRequest(clientInfo: ClientInfo(name: clientName))),
              result.capabilities.presenters.first == "connection"
        else {
            client.close()
            return nil
        }
        return client
    }
}
