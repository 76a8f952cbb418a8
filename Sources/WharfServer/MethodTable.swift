import WharfJSON
import WharfJSONRPC

/// How one method is served.
///
/// Most methods answer at once (`immediate`); the few that wait on disk or on the client answer
/// their `Reply` later (`deferred`) so that the read loop never waits on them.
///
/// Handlers may throw any error: `ResponseError`s go to the client as they are, the domain
/// modules' errors are turned into protocol errors in one place (`ResponseError(answering:)`).
public enum MethodHandler: Sendable {
    case immediate(@Sendable (ClientSession, Params) throws -> JSON)
    case deferred(@Sendable (ClientSession, Params, Reply) throws -> Void)
}

/// Every request method the server answers, by name: dispatch is one dictionary lookup.
/// Each `Methods+….swift` file contributes the methods of one area.
struct MethodTable: Sendable {
    private(set) var handlers: [String: MethodHandler] = [:]

    mutating func add(_ method: String, _ handler: MethodHandler) {
        precondition(handlers[method] == nil, "method \(method) registered twice")
        handlers[method] = handler
    }

    subscript(method: String) -> MethodHandler? { handlers[method] }

    /// All methods, built once per process.
    static let standard: MethodTable = {
        var table = MethodTable()
        table.addLifecycleMethods()
        table.addContentTypeMethods()
        table.addDialogMethods()
        table.addAccessMethods()
        return table
    }()
}
