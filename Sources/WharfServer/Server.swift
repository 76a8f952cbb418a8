import WharfJSON
import WharfJSONRPC
import WharfSystem

/// What every client of one `wharf` process shares: configuration, the method table, and
/// (as later layers arrive) the dialog engine, the content-type registry and the access store.
///
/// One process can serve many clients; nothing here belongs to a single one.
public final class Server: Sendable {
    public let options: ServerOptions
    public let logger: Logger
    let methods = MethodTable.standard
    private let nextClientID = Locked<UInt64>(1)

    public init(options: ServerOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// A new id for each connection; unique within this process.
    func makeClientID() -> UInt64 {
        nextClientID.withValue { id in
            defer { id += 1 }
            return id
        }
    }

    /// What `initialize` reports under `capabilities`.
    var capabilities: JSON {
        var capabilities = JSONObject()
        capabilities["ping"] = true
        capabilities["framings"] = .array(Framing.allCases.map { .string($0.rawValue) })
        return .object(capabilities)
    }
}
