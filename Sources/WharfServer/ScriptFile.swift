import Glibc
import WharfDialogs
import WharfFileWriting
import WharfJSON
import WharfSystem

/// Reads a `--presenter script:FILE` script: a JSON array of steps (or `{"steps": […]}`).
///
/// ```json
/// [{"expect": {"kind": "importer"}}, {"delayMs": 50}, {"choose": ["photos/a.png"]},
///  {"save": {"path": "out/report.txt", "overwrite": true}}, {"dismiss": true}]
/// ```
/// Relative paths are relative to the script file's directory, so a script and its sample
/// files can travel together.
enum ScriptFile {
    static func load(_ path: FilePath) throws(StartupError) -> [ScriptStep] {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.open(path, O_RDONLY).readToEnd()
        } catch {
            throw StartupError(message: "--presenter script:\(path): \(error)")
        }
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw StartupError(message: "--presenter script:\(path): not valid JSON: \(error)")
        }
        let base = path.normalized.directory
        do {
            return try parse(json, relativeTo: base)
        } catch {
            throw StartupError(message: "--presenter script:\(path): \(error.message)")
        }
    }

    struct ScriptError: Error { var message: String }

    static func parse(_ json: JSON, relativeTo base: FilePath) throws(ScriptError) -> [ScriptStep] {
        let list: [JSON]
        if let array = json.arrayValue {
            list = array
        } else if let array = json["steps"]?.arrayValue {
            list = array
        } else {
            throw ScriptError(message: "expected an array of steps")
        }
        var steps: [ScriptStep] = []
        for (index, step) in list.enumerated() {
            steps.append(try parseStep(step, index: index, base: base))
        }
        return steps
    }

    /// A script path as a URL the engine takes: `file:` URLs and absolute paths as written,
    /// relative paths against the script's directory.
    private static func resolve(_ path: String, _ base: FilePath) -> String {
        if path.hasPrefix("file:") || path.hasPrefix("/") { return path }
        return base.appending(path).normalized.url
    }

    private static func parseStep(_ step: JSON, index: Int, base: FilePath) throws(ScriptError) -> ScriptStep {
        let where_ = "step \(index)"
        // A mover's choose may say what the human answers when names in the folder are taken.
        if case .object(let object) = step, object.count == 2, let folders = object["choose"],
           let resolution = object["conflictResolution"] {
            guard let paths = folders.arrayValue?.compactMap(\.stringValue), paths.count == 1, folders.arrayValue?.count == 1 else {
                throw ScriptError(message: "\(where_): choose with conflictResolution takes one folder")
            }
            let parsed: MoveConflictResolution
            switch resolution.stringValue {
            case "replace": parsed = .replace
            case "keepBoth": parsed = .keepBoth
            default: throw ScriptError(message: "\(where_): conflictResolution is replace or keepBoth")
            }
            return .choose([resolve(paths[0], base)], conflictResolution: parsed)
        }
        guard case .object(let object) = step, object.count == 1, let (key, value) = object.members.first.map({ ($0.key, $0.value) }) else {
            throw ScriptError(message: "\(where_): expected an object with exactly one of choose, dismiss, delayMs, expect, save, selectFilter, setChoice "
                + "(a mover's choose may add conflictResolution)")
        }
        switch key {
        case "choose":
            guard let paths = value.arrayValue?.compactMap(\.stringValue), paths.count == value.arrayValue?.count else {
                throw ScriptError(message: "\(where_): choose takes an array of paths")
            }
            return .choose(paths.map { resolve($0, base) })
        case "dismiss":
            return .dismiss
        case "delayMs":
            guard let ms = value.intValue, ms >= 0, ms <= 3_600_000 else {
                throw ScriptError(message: "\(where_): delayMs takes milliseconds from 0 to 3600000")
            }
            return .delay(milliseconds: Int(ms))
        case "save":
            guard case .object = value else { throw ScriptError(message: "\(where_): save takes an object {path?, contentType?, overwrite?}") }
            return .save(
                path: value["path"]?.stringValue.map { resolve($0, base) },
                contentType: value["contentType"]?.stringValue,
                overwrite: value["overwrite"]?.boolValue ?? false
            )
        case "selectFilter":
            guard let name = value.stringValue else { throw ScriptError(message: "\(where_): selectFilter takes a filter's name") }
            return .selectFilter(name)
        case "setChoice":
            guard let id = value["id"]?.stringValue, let choice = value["value"]?.stringValue, value.objectValue?.count == 2 else {
                throw ScriptError(message: "\(where_): setChoice takes {\"id\": choice id, \"value\": an option's id, or \"true\"/\"false\"}")
            }
            return .setChoice(id: id, value: choice)
        case "expect":
            guard case .object = value else { throw ScriptError(message: "\(where_): expect takes an object") }
            return .expect(try expectation(value, where_: where_, base: base))
        default:
            throw ScriptError(message: "\(where_): unknown step \(key)")
        }
    }

    private static let expectationFields: Set<String> = [
        "kind", "allowedContentTypes", "allowsMultipleSelection", "title", "message", "confirmationLabel",
        "directory", "filename", "contentTypes", "filenameLabel", "browserOptions",
    ]

    private static func expectation(_ value: JSON, where_: String, base: FilePath) throws(ScriptError) -> ScriptExpectation {
        // A misspelt field would otherwise expect nothing and pass silently.
        if let unknown = value.objectValue?.keys.first(where: { !expectationFields.contains($0) }) {
            throw ScriptError(message: "\(where_): expect has no field \(unknown) (\(expectationFields.sorted().joined(separator: ", ")))")
        }
        func strings(_ key: String) -> [String]? { value[key]?.arrayValue?.compactMap(\.stringValue) }
        var kind: DialogKind?
        if let raw = value["kind"]?.stringValue {
            guard let parsed = DialogKind(rawValue: raw) else { throw ScriptError(message: "\(where_): expect.kind must be importer, exporter or mover") }
            kind = parsed
        }
        var browserOptions: BrowserOptions?
        if let names = strings("browserOptions") {
            var options = BrowserOptions()
            for name in names {
                guard let option = BrowserOptions(name: name) else { throw ScriptError(message: "\(where_): unknown browser option \(name)") }
                options.insert(option)
            }
            browserOptions = options
        }
        return ScriptExpectation(
            kind: kind,
            allowedContentTypes: strings("allowedContentTypes"),
            allowsMultipleSelection: value["allowsMultipleSelection"]?.boolValue,
            title: value["title"]?.stringValue,
            message: value["message"]?.stringValue,
            confirmationLabel: value["confirmationLabel"]?.stringValue,
            directory: value["directory"]?.stringValue.flatMap { FileURL.pathOrURL($0) ?? FilePath($0).map { base.appending($0.bytes) } },
            filename: value["filename"]?.stringValue,
            contentTypes: strings("contentTypes"),
            filenameLabel: value["filenameLabel"]?.stringValue,
            browserOptions: browserOptions
        )
    }
}
