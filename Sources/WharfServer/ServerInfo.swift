/// What the server says about itself in `initialize`.
public enum ServerInfo {
    public static let name = "wharf"
    public static let version = "0.1.0"
    /// The version of the wire protocol described in protocol/README.md.
    public static let protocolVersion = "0.1"
}
