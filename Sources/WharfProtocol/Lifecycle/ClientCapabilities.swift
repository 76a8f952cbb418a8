import WharfJSON

/// What the client can do.
public struct ClientCapabilities: ProtocolValue {
    /// The client draws dialogs itself: it gets `presenter/show` and answers with `dialog/…`.
    public var presentsDialogs: Bool
    /// With `presentsDialogs`: the desktop's own dialogs are used when one is usable, the
    /// client's only when none is.
    public var prefersDesktopDialogs: Bool

    public init(presentsDialogs: Bool = false, prefersDesktopDialogs: Bool = false) {
        self.presentsDialogs = presentsDialogs
        self.prefersDesktopDialogs = prefersDesktopDialogs
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        presentsDialogs = try reader.bool("presentsDialogs", default: false)
        prefersDesktopDialogs = try reader.bool("prefersDesktopDialogs", default: false)
    }

    public var json: JSON {
        ["presentsDialogs": .bool(presentsDialogs), "prefersDesktopDialogs": .bool(prefersDesktopDialogs)]
    }

    public static var example: ClientCapabilities { ClientCapabilities(presentsDialogs: true) }
}
