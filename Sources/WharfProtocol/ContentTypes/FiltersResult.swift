import WharfJSON

public struct FiltersResult: ProtocolValue {
    public var globs: [String]
    public var mimeTypes: [String]
    public var directories: Bool
    public var allowsAllFiles: Bool

    public init(globs: [String], mimeTypes: [String], directories: Bool, allowsAllFiles: Bool) {
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
        self.allowsAllFiles = allowsAllFiles
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        globs = try reader.strings("globs")
        mimeTypes = try reader.strings("mimeTypes")
        directories = try reader.bool("directories")
        allowsAllFiles = try reader.bool("allowsAllFiles")
    }

    public var json: JSON {
        ["globs": .array(globs.map(JSON.string)), "mimeTypes": .array(mimeTypes.map(JSON.string)),
         "directories": .bool(directories), "allowsAllFiles": .bool(allowsAllFiles)]
    }

    public static var example: FiltersResult {
        FiltersResult(globs: ["*.png", "*.jpg"], mimeTypes: ["image/*"], directories: false, allowsAllFiles: false)
    }
}
