import WharfJSON

/// `$/setTrace` levels, as in the LSP.
public enum TraceLevel: String, Sendable {
    case off, messages, verbose
}
