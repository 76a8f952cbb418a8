import WharfJSON

/// `dialog/presentationChanged`: the dialog is no longer presented (always just before its ending).
public struct PresentationChangedNotification: NotificationMessage {
    public static let method = "dialog/presentationChanged"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public var isPresented: Bool

    public init(dialogId: String, isPresented: Bool) {
        self.dialogId = dialogId
        self.isPresented = isPresented
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        isPresented = try reader.bool("isPresented", default: false)
    }

    public var json: JSON { ["dialogId": .string(dialogId), "isPresented": .bool(isPresented)] }
    public static var example: PresentationChangedNotification { PresentationChangedNotification(dialogId: "dlg-1", isPresented: false) }
}

/// `dialog/completed`: the files (success), or the failure.
public struct DialogCompletedNotification: NotificationMessage {
    public static let method = "dialog/completed"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    /// `importer` or `exporter`.
    public var kind: String
    public var outcome: Outcome

    public enum Outcome: Sendable, Equatable {
        /// An importer's picks, or an exporter's written files with the type each was written as.
        case files(urls: [String], contentTypes: [String]?)
        case failure(DialogFailureInfo)
    }

    public init(dialogId: String, kind: String, outcome: Outcome) {
        self.dialogId = dialogId
        self.kind = kind
        self.outcome = outcome
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        kind = try reader.string("kind")
        if reader.has("error") {
            outcome = .failure(try reader.object("error") { reader throws(ProtocolError) in try DialogFailureInfo(reading: &reader) })
        } else {
            outcome = .files(urls: try reader.strings("urls"), contentTypes: try reader.optionalStrings("contentTypes"))
        }
    }

    public var json: JSON {
        var object: JSONObject = ["dialogId": .string(dialogId), "kind": .string(kind)]
        switch outcome {
        case .files(let urls, let contentTypes):
            object["urls"] = .array(urls.map(JSON.string))
            object.set("contentTypes", contentTypes)
        case .failure(let failure):
            object["error"] = failure.json
        }
        return .object(object)
    }

    public static var example: DialogCompletedNotification {
        DialogCompletedNotification(dialogId: "dlg-1", kind: "importer", outcome: .files(urls: ["file:///home/me/a.png"], contentTypes: nil))
    }
}

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

/// `dialog/cancelled`: ended without a result (`user`, `client`, `timeout`, `disconnected`).
public struct DialogCancelledNotification: NotificationMessage {
    public static let method = "dialog/cancelled"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public var kind: String
    public var reason: String

    public init(dialogId: String, kind: String, reason: String) {
        self.dialogId = dialogId
        self.kind = kind
        self.reason = reason
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        kind = try reader.string("kind")
        reason = try reader.string("reason")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "kind": .string(kind), "reason": .string(reason)] }
    public static var example: DialogCancelledNotification { DialogCancelledNotification(dialogId: "dlg-1", kind: "importer", reason: "user") }
}

/// `dialog/progress`: how far a large export has come.
public struct DialogProgressNotification: NotificationMessage {
    public static let method = "dialog/progress"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public var bytesWritten: Int64
    public var totalBytes: Int64

    public init(dialogId: String, bytesWritten: Int64, totalBytes: Int64) {
        self.dialogId = dialogId
        self.bytesWritten = bytesWritten
        self.totalBytes = totalBytes
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        bytesWritten = try reader.int("bytesWritten")
        totalBytes = try reader.int("totalBytes")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "bytesWritten": .int(bytesWritten), "totalBytes": .int(totalBytes)] }
    public static var example: DialogProgressNotification { DialogProgressNotification(dialogId: "dlg-3", bytesWritten: 4_194_304, totalBytes: 8_388_608) }
}
