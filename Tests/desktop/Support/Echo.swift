import WharfDBus

/// A service that answers `org.wharf.Test.Echo` with the arguments it was given,
/// `org.wharf.Test.Fail` with an error, and never answers `org.wharf.Test.Hang`.
public enum EchoService {
    public static let name = "org.wharf.Test.Echo"
    public static let path = "/org/wharf/Test"
    public static let interface = "org.wharf.Test"

    public static func serve(on connection: BusConnection) throws {
        connection.export(path: path) { call in
            switch call.member {
            case "Echo": return .reply(call.body)
            case "Fail": return .error(BusError(name: "org.wharf.Test.Error.Refused", message: "refused: \(call.body.first?.stringValue ?? "")"))
            case "Hang": return .noReply
            case "SignalFirst":
                return .signalsThenReply([BusSignal(path: path, interface: interface, member: "Ping", body: call.body)], [.string("reply")])
            default: return .notHandled
            }
        }
        guard try connection.requestName(name).get() else { throw BusError(name: "test", message: "could not own \(name)") }
    }
}
