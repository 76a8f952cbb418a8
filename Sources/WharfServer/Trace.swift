import WharfJSON
import WharfJSONRPC

/// `$/setTrace` levels, as in the LSP.
public enum TraceLevel: String, Sendable {
    case off, messages, verbose
}

extension ClientSession {
    /// Turns `$/logTrace` reports of our traffic on or off.
    func setTrace(_ level: TraceLevel) {
        guard level != .off else {
            connection.tracer.withValue { $0 = nil }
            return
        }
        let verbose = level == .verbose
        connection.tracer.withValue { tracer in
            tracer = { [weak connection] event in
                guard let connection, let (message, detail) = Self.describe(event, verbose: verbose) else { return }
                var params = JSONObject()
                params["message"] = .string(message)
                if let detail { params["verbose"] = .string(detail) }
                connection.send(notification: "$/logTrace", params: .object(params))
            }
        }
    }

    /// The LSP's wording for traffic ("Received request 'ping - (1)'."); nil for our own
    /// `$/logTrace` notifications, which are never traced.
    private static func describe(_ event: TraceEvent, verbose: Bool) -> (String, String?)? {
        switch event {
        case .receivedRequest(let request):
            return ("Received request '\(request.method) - (\(request.id))'.", verbose ? "Params: \(request.params?.jsonText ?? "none")" : nil)
        case .receivedNotification(let notification):
            return ("Received notification '\(notification.method)'.", verbose ? "Params: \(notification.params?.jsonText ?? "none")" : nil)
        case .sentResponse(let id, let method, let result):
            let detail: String
            switch result {
            case .success(let value): detail = "Result: \(value.jsonText)"
            case .failure(let error): detail = "Error: \(error.json.jsonText)"
            }
            return ("Sending response '\(method) - (\(id))'.", verbose ? detail : nil)
        case .sentNotification(let method, let params):
            guard method != "$/logTrace" else { return nil }
            return ("Sending notification '\(method)'.", verbose ? "Params: \(params?.jsonText ?? "none")" : nil)
        case .sentRequest(let id, let method, let params):
            return ("Sending request '\(method) - (\(id))'.", verbose ? "Params: \(params?.jsonText ?? "none")" : nil)
        }
    }
}
