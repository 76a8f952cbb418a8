import WharfDialogs
import WharfFileWriting
import WharfJSON
import WharfJSONRPC
import WharfSystem

/// Reading `presentImporter` / `presentExporter` params into the engine's typed requests.
/// Shape errors are -32602 naming the field; the engine checks meaning (unknown types, …).
enum DialogParams {
    static func importer(_ params: Params) throws(ResponseError) -> ImporterRequest {
        ImporterRequest(
            allowedContentTypes: try params.stringArray("allowedContentTypes"),
            allowsMultipleSelection: try params.bool("allowsMultipleSelection", default: false),
            presentationId: try params.optionalString("presentationId"),
            options: try options(params.optionalObject("options"), exporter: false)
        )
    }

    static func exporter(_ params: Params) throws(ResponseError) -> ExporterRequest {
        guard let entries = try params.objectArray("documents") else { throw params.missing("documents") }
        var documents: [ExportDocument] = []
        for entry in entries {
            documents.append(ExportDocument(
                filename: try entry.optionalString("filename"),
                writableContentTypes: try entry.stringArray("writableContentTypes"),
                contents: try contents(entry.optionalObject("contents"))
            ))
        }
        let single = try params.optionalString("contentType")
        let several = try params.optionalStringArray("contentTypes")
        if single != nil && several != nil {
            throw .invalidParams("contentType and contentTypes: give one or the other (FileDocument or WritableDocument form)")
        }
        return ExporterRequest(
            documents: documents,
            contentTypes: single.map(ExportContentTypes.contentType) ?? .contentTypes(several ?? []),
            defaultFilename: try params.optionalString("defaultFilename"),
            presentationId: try params.optionalString("presentationId"),
            options: try options(params.optionalObject("options"), exporter: true)
        )
    }

    /// `{"text": …}`, `{"base64": …}` or `{"path": …}`: a document's bytes, or a snapshot's.
    static func contents(_ params: Params?) throws(ResponseError) -> ExportSource? {
        guard let params else { return nil }
        let present = ["text", "base64", "path"].filter { params.has($0) }
        guard present.count == 1 else {
            throw .invalidParams("\(params.name("")): expected exactly one of text, base64, path")
        }
        switch present[0] {
        case "text":
            return .bytes(Array(try params.string("text").utf8))
        case "base64":
            guard let bytes = Base64.decode(try params.string("base64")) else {
                throw .invalidParams("\(params.name("base64")): not valid base64 (RFC 4648, padded)")
            }
            return .bytes(bytes)
        default:
            let raw = try params.string("path")
            guard let path = FileURL.pathOrURL(raw) else {
                throw .invalidParams("\(params.name("path")): expected an absolute path or a file: URL, got \(raw)")
            }
            return .file(path: path)
        }
    }

    static func options(_ params: Params?, exporter: Bool) throws(ResponseError) -> DialogOptions {
        guard let params else { return DialogOptions() }
        var defaultDirectory: FilePath?
        if let raw = try params.optionalString("defaultDirectory") {
            guard let path = FileURL.pathOrURL(raw) else {
                throw .invalidParams("\(params.name("defaultDirectory")): expected an absolute path or a file: URL, got \(raw)")
            }
            defaultDirectory = path
        }
        var browserOptions = BrowserOptions()
        for name in try params.optionalStringArray("browserOptions") ?? [] {
            guard let option = BrowserOptions(name: name) else {
                throw .invalidParams("\(params.name("browserOptions")): unknown option \(name) (enumeratePackages, includeHiddenFiles, displayFileExtensions)")
            }
            browserOptions.insert(option)
        }
        var timeout: Int?
        if let ms = try params.optionalInt("timeoutMs", in: 1...86_400_000) { timeout = Int(ms) }
        if !exporter && params.has("filenameLabel") {
            throw .invalidParams("\(params.name("filenameLabel")): only exporters have a filename field")
        }
        return DialogOptions(
            defaultDirectory: defaultDirectory,
            title: try params.optionalString("title"),
            message: try params.optionalString("message"),
            confirmationLabel: try params.optionalString("confirmationLabel"),
            browserOptions: browserOptions,
            urlEnabled: try params.raw("urlEnabled").map { value throws(ResponseError) in try predicate(value, path: params.name("urlEnabled")) },
            importsUnresolvedAliases: try params.bool("importsUnresolvedAliases", default: false),
            customizationId: try params.optionalString("customizationId"),
            timeoutMs: timeout,
            filenameLabel: try params.optionalString("filenameLabel")
        )
    }

    /// The declarative stand-in for `fileDialogURLEnabled`'s closure.
    static func predicate(_ json: JSON, path: String, depth: Int = 0) throws(ResponseError) -> URLPredicate {
        guard depth < URLPredicate.maximumDepth else {
            throw .invalidParams("\(path): nested deeper than \(URLPredicate.maximumDepth)")
        }
        guard case .object(let object) = json, object.count == 1, let member = object.members.first else {
            throw .invalidParams("\(path): expected an object with exactly one operator (all, any, not, nameMatches, pathMatches, conformsTo, sizeAtMost, sizeAtLeast, modifiedAfter, isDirectory, isHidden)")
        }
        let value = member.value
        let here = "\(path).\(member.key)"
        func operands() throws(ResponseError) -> [URLPredicate] {
            guard let array = value.arrayValue else { throw .invalidParams("\(here): expected an array of predicates") }
            var result: [URLPredicate] = []
            for (index, element) in array.enumerated() {
                result.append(try predicate(element, path: "\(here)[\(index)]", depth: depth + 1))
            }
            return result
        }
        func string() throws(ResponseError) -> String {
            guard let string = value.stringValue else { throw .invalidParams("\(here): expected a string, got \(value.typeName)") }
            return string
        }
        func size() throws(ResponseError) -> Int64 {
            guard let number = value.intValue, number >= 0 else { throw .invalidParams("\(here): expected a byte count, got \(value.jsonText)") }
            return number
        }
        func flag() throws(ResponseError) -> Bool {
            guard let flag = value.boolValue else { throw .invalidParams("\(here): expected a boolean, got \(value.typeName)") }
            return flag
        }
        switch member.key {
        case "all": return .all(try operands())
        case "any": return .any(try operands())
        case "not": return .not(try predicate(value, path: here, depth: depth + 1))
        case "nameMatches": return .nameMatches(try string())
        case "pathMatches": return .pathMatches(try string())
        case "conformsTo": return .conformsTo(try string())
        case "sizeAtMost": return .sizeAtMost(try size())
        case "sizeAtLeast": return .sizeAtLeast(try size())
        case "modifiedAfter":
            let text = try string()
            guard let seconds = ISO8601.secondsSinceEpoch(text) else {
                throw .invalidParams("\(here): expected an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got \(text)")
            }
            return .modifiedAfter(seconds)
        case "isDirectory": return .isDirectory(try flag())
        case "isHidden": return .isHidden(try flag())
        default:
            throw .invalidParams("\(path): unknown operator \(member.key)")
        }
    }
}
