import WharfJSON
import WharfJSONRPC
import WharfProtocol

extension ClientSession {
    /// Turns `$/logTrace` reports of our traffic on (`messages`, `verbose`) or off.
    func setTrace(_ level: TraceLevel) {
        guard level != .off else {
            connection.tracer.withValue { $0 = nil }
            return
        }
        let verbose = level == .verbose
        connection.tracer.withValue { tracer in
            tracer = { [weak connection] event in
                guard let connection, let report = Self.describe(event, verbose: verbose) else { return }
                connection.send(notification: LogTraceNotification.method, params: report.json)
            }
        }
    }

    /// The LSP's wording for traffic ("Received request 'ping - (1)'."); nil for our own
    /// `$/logTrace` notifications, which are never traced.
    private static func describe(_ event: TraceEvent, verbose: Bool) -> LogTraceNotification? {
        // `detail` serialises a whole message: only when asked for.
        let (message, detail): (String, () -> String)
        switch event {
        case .receivedRequest(let request):
            (message, detail) = ("Received request '\(request.method) - (\(request.id))'.", { "Params: \(request.params?.jsonText ?? "none")" })
        case .receivedNotification(let notification):
            (message, detail) = ("Received notification '\(notification.method)'.", { "Params: \(notification.params?.jsonText ?? "none")" })
        case .sentResponse(let id, let method, let result):
            // An answer to what was no request has no method to name.
            let name = method.map { "'\($0) - (\(id))'" } ?? "to an invalid message - (\(id))"
            switch result {
            case .success(let value): (message, detail) = ("Sending response \(name).", { "Result: \(value.jsonText)" })
            case .failure(let error): (message, detail) = ("Sending response \(name).", { "Error: \(error.json.jsonText)" })
            }
        case .sentNotification(let method, let params):
            guard method != LogTraceNotification.method else { return nil }
            (message, detail) = ("Sending notification '\(method)'.", { "Params: \(params?.jsonText ?? "none")" })
        case .sentRequest(let id, let method, let params):
            (message, detail) = ("Sending request '\(method) - (\(id))'.", { "Params: \(params?.jsonText ?? "none")" })
        }
        return LogTraceNotification(message: message, verbose: verbose ? detail() : nil)
    }
}
