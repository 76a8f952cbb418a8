import WharfJSON

/// `contentTypes/identify`: what each file is.
public struct IdentifyRequest: RequestMessage {
    public static let method = "contentTypes/identify"
    public typealias Result = IdentifyResult
    /// Paths or `file:` URLs.
    public var paths: [String]
    public var sniff: Bool
    public var followSymlinks: Bool

    public init(paths: [String], sniff: Bool = true, followSymlinks: Bool = true) {
        self.paths = paths
        self.sniff = sniff
        self.followSymlinks = followSymlinks
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        paths = try reader.strings("paths")
        sniff = try reader.bool("sniff", default: true)
        followSymlinks = try reader.bool("followSymlinks", default: true)
    }

    public var json: JSON {
        ["paths": .array(paths.map(JSON.string)), "sniff": .bool(sniff), "followSymlinks": .bool(followSymlinks)]
    }

    public static var example: IdentifyRequest { IdentifyRequest(paths: ["/home/me/a.png", "file:///home/me/notes"]) }
}
