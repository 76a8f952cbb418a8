import WharfJSON
import WharfJSONRPC

extension MethodTable {
    mutating func addLifecycleMethods() {
        add("ping", .immediate { _, _ in .object(JSONObject()) })
        add("shutdown", .immediate { session, _ in
            session.beginShutdown()
            return .null
        })
    }
}

extension ClientSession {
    /// `initialize`: records who the client is and what it can do, and says what we can do.
    func initialize(_ params: Params) throws(ResponseError) -> JSON {
        var processID: Int32?
        if let pid = try params.optionalInt("processId", in: 1...Int64(Int32.max)) { processID = Int32(pid) }
        let clientInfo = try params.optionalObject("clientInfo")
        let name = try clientInfo?.optionalString("name")
        let capabilities = try params.optionalObject("capabilities")
        let presentsDialogs = try capabilities?.bool("presentsDialogs", default: false) ?? false
        let trace = try params.optionalString("trace").map { value throws(ResponseError) -> TraceLevel in
            guard let level = TraceLevel(rawValue: value) else {
                throw .invalidParams("trace: expected \"off\", \"messages\" or \"verbose\", got \"\(value)\"")
            }
            return level
        }
        state.withValue { state in
            state.lifecycle = .initialized
            if let name, !name.isEmpty { state.appIdentity = name }
            state.presentsDialogs = presentsDialogs
        }
        if let trace { setTrace(trace) }
        if let processID { watchParent(processID) }

        var serverInfo = JSONObject()
        serverInfo["name"] = .string(ServerInfo.name)
        serverInfo["version"] = .string(ServerInfo.version)
        var result = JSONObject()
        result["serverInfo"] = .object(serverInfo)
        result["protocolVersion"] = .string(ServerInfo.protocolVersion)
        result["capabilities"] = server.capabilities
        return .object(result)
    }
}
