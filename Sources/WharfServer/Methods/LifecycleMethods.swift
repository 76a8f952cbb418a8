import WharfAccess
import WharfJSONRPC
import WharfProtocol

extension MethodTable {
    /// `ping` and `shutdown`; `initialize` and the notifications are the session's own
    /// (``ClientSession``), since they move its lifecycle.
    mutating func addLifecycleMethods() {
        onReadLoop(PingRequest.self) { _, _ in Empty() }
        onReadLoop(ShutdownRequest.self) { session, _ in
            session.beginShutdown()
            return Null()
        }
    }
}

