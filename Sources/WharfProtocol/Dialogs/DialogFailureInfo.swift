import WharfJSON

/// The error half of a dialog's result.
public struct DialogFailureInfo: ProtocolValue {
    public var code: Int64
    public var message: String
    public var url: String?

    public init(code: Int64, message: String, url: String? = nil) {
        self.code = code
        self.message = message
        self.url = url
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        code = try reader.int("code")
        message = try reader.string("message")
        url = try reader.optionalString("url")
    }

    public var json: JSON {
        var object: JSONObject = ["code": .int(code), "message": .string(message)]
        object.set("url", url)
        return .object(object)
    }

    public static var example: DialogFailureInfo {
        DialogFailureInfo(code: WharfErrorCode.fileOperationFailed.rawValue, message: "could not write /home/me/a.txt: disk full",
                          url: "file:///home/me/a.txt")
    }
}
