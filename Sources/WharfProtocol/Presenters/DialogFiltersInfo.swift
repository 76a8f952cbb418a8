import WharfJSON

/// Filters for a file view: globs and MIME types. `allowsAllFiles` says that every file passes
/// (the lists are then empty); empty lists without it mean no file does (a folder picker).
public struct DialogFiltersInfo: ProtocolValue {
    public var globs: [String]
    public var mimeTypes: [String]
    public var directories: Bool
    public var allowsAllFiles: Bool

    public init(globs: [String], mimeTypes: [String], directories: Bool, allowsAllFiles: Bool = false) {
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
        self.allowsAllFiles = allowsAllFiles
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        globs = try reader.strings("globs")
        mimeTypes = try reader.strings("mimeTypes")
        directories = try reader.bool("directories")
        // A server older than the member meant all files by empty lists.
        allowsAllFiles = try reader.bool("allowsAllFiles", default: globs.isEmpty && mimeTypes.isEmpty)
    }

    public var json: JSON {
        ["globs": .array(globs.map(JSON.string)), "mimeTypes": .array(mimeTypes.map(JSON.string)), "directories": .bool(directories),
         "allowsAllFiles": .bool(allowsAllFiles)]
    }

    public static var example: DialogFiltersInfo { DialogFiltersInfo(globs: ["*.png"], mimeTypes: ["image/png"], directories: false) }
}
