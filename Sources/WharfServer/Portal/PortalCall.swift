import WharfDBus
import WharfProtocol
import WharfSystem

/// One call of `org.freedesktop.impl.portal.FileChooser` (`OpenFile`, `SaveFile`, `SaveFiles`),
/// read and checked: every option of the type the interface gives it, or the call is refused
/// with `org.freedesktop.DBus.Error.InvalidArgs` naming the option.
///
/// Paths arrive as NUL-terminated byte arrays (`ay`) and stay bytes (``FilePath``).
struct PortalCall: Sendable, Equatable {
    enum Method: String, Sendable {
        case openFile = "OpenFile"
        case saveFile = "SaveFile"
        case saveFiles = "SaveFiles"
    }

    var method: Method
    /// The `org.freedesktop.impl.portal.Request` object the frontend made for this call.
    var handle: String
    var appID: String
    var parentWindow: String
    var title: String
    var acceptLabel: String?
    var modal = true
    var multiple = false
    var directory = false
    var filters: [PortalFilter] = []
    var currentFilter: PortalFilter?
    var choices: [PortalChoice] = []
    var currentName: String?
    var currentFolder: FilePath?
    var currentFile: FilePath?
    /// `SaveFiles`: the names of the files to be saved into the chosen folder.
    var files: [String] = []
    /// Options this method does not know, for the log (they are ignored).
    var ignored: [String] = []

    /// The most filters, and patterns in all, one call may give: a dialog shows a few, and
    /// each becomes part of what every pick is checked against.
    static let maximumFilters = 1024
    static let maximumPatterns = 4096
    /// The most names `SaveFiles` may give (Wharf's exporter takes at most 256 documents).
    static let maximumFiles = 256

    /// Reads a method call's body (`osssa{sv}`).
    init(method: Method, body: [BusValue]) throws(BusError) {
        self.method = method
        let signature = body.map(\.signature).joined()
        guard signature == "osssa{sv}" else {
            throw Self.invalid("\(method.rawValue) takes (handle o, app_id s, parent_window s, title s, options a{sv}), not (\(signature))")
        }
        guard case .objectPath(let handle) = body[0], let appID = body[1].stringValue,
              let parentWindow = body[2].stringValue, let title = body[3].stringValue,
              let options = body[4].arrayItems
        else { throw Self.invalid("\(method.rawValue): arguments of the wrong types") }
        guard handle != PortalBackend.objectPath, handle.hasPrefix("/"), handle.count > 1 else {
            throw Self.invalid("handle \(handle) cannot be this call's Request object")
        }
        self.handle = handle
        self.appID = appID
        self.parentWindow = parentWindow
        self.title = title
        for entry in options {
            guard case .dictEntry(let key, let wrapped) = entry, let name = key.stringValue else { continue }
            try read(option: name, wrapped.unwrapped)
        }
        if method == .saveFiles, files.isEmpty {
            throw Self.invalid("option files: SaveFiles needs the names of the files to save")
        }
        // An OpenFile's current_filter outside its filters is offered beside them.
        if method == .openFile, !directory, let currentFilter, !filters.contains(currentFilter),
           filters.count >= Self.maximumFilters {
            throw Self.invalid("option current_filter: not one of the \(filters.count) filters, and a dialog offers at most \(Self.maximumFilters)")
        }
    }

    private mutating func read(option name: String, _ value: BusValue) throws(BusError) {
        func expect(_ type: String) throws(BusError) {
            guard value.signature == type else {
                throw Self.invalid("option \(name) must be of type \(type), not \(value.signature)")
            }
        }
        let known: [Method: Set<String>] = [
            .openFile: ["accept_label", "modal", "multiple", "directory", "filters", "current_filter", "choices", "current_folder"],
            .saveFile: ["accept_label", "modal", "filters", "current_filter", "choices", "current_name", "current_folder", "current_file"],
            .saveFiles: ["accept_label", "modal", "choices", "current_name", "current_folder", "files"],
        ]
        guard known[method]!.contains(name) else {
            ignored.append(name)
            return
        }
        switch name {
        case "accept_label":
            try expect("s")
            acceptLabel = value.stringValue
        case "modal":
            try expect("b")
            modal = value.boolValue!
        case "multiple":
            try expect("b")
            multiple = value.boolValue!
        case "directory":
            try expect("b")
            directory = value.boolValue!
        case "filters":
            try expect("a(sa(us))")
            let items = value.arrayItems ?? []
            guard items.count <= Self.maximumFilters else {
                throw Self.invalid("option filters: at most \(Self.maximumFilters) filters (\(items.count) given)")
            }
            var read: [PortalFilter] = []
            for (index, item) in items.enumerated() {
                read.append(try PortalFilter(item, option: "filters[\(index)]"))
            }
            let patterns = read.reduce(0) { $0 + $1.patterns.count }
            guard patterns <= Self.maximumPatterns else {
                throw Self.invalid("option filters: at most \(Self.maximumPatterns) patterns in all (\(patterns) given)")
            }
            filters = read
        case "current_filter":
            try expect("(sa(us))")
            currentFilter = try PortalFilter(value, option: "current_filter")
        case "choices":
            try expect("a(ssa(ss)s)")
            choices = try (value.arrayItems ?? []).enumerated().map { index, item throws(BusError) in
                try PortalChoice(item, option: "choices[\(index)]")
            }
        case "current_name":
            try expect("s")
            currentName = value.stringValue
        case "current_folder":
            try expect("ay")
            currentFolder = try Self.absolutePath(value, option: name)
        case "current_file":
            try expect("ay")
            currentFile = try Self.absolutePath(value, option: name)
            if currentFile == .root { throw Self.invalid("option current_file: / is a folder, not a file") }
        case "files":
            try expect("aay")
            let items = value.arrayItems ?? []
            guard items.count <= Self.maximumFiles else {
                throw Self.invalid("option files: at most \(Self.maximumFiles) names (\(items.count) given)")
            }
            files = try items.enumerated().map { index, item throws(BusError) in
                let option = "files[\(index)]"
                guard case .bytes(let raw) = item else { throw Self.invalid("option \(option) must be of type ay") }
                let bytes = try Self.terminated(raw, option: option)
                guard !bytes.isEmpty, !bytes.contains(UInt8(ascii: "/")), bytes != Array(".".utf8), bytes != Array("..".utf8) else {
                    throw Self.invalid("option \(option): a file name, not empty and without /")
                }
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    throw Self.invalid("option \(option): Wharf names saved files in UTF-8, and this name is not")
                }
                return name
            }
        default:
            ignored.append(name)
        }
    }

    /// A NUL-terminated byte string without its NUL (the portal's `ay` paths and names).
    static func terminated(_ bytes: [UInt8], option: String) throws(BusError) -> [UInt8] {
        guard bytes.last == 0 else { throw invalid("option \(option) must end with a NUL byte") }
        let content = Array(bytes.dropLast())
        guard !content.contains(0) else { throw invalid("option \(option) holds a NUL byte before its end") }
        return content
    }

    private static func absolutePath(_ value: BusValue, option: String) throws(BusError) -> FilePath {
        guard case .bytes(let raw) = value else { throw invalid("option \(option) must be of type ay") }
        let bytes = try terminated(raw, option: option)
        guard bytes.first == UInt8(ascii: "/"), let path = FilePath(bytes: bytes) else {
            throw invalid("option \(option) must be an absolute path")
        }
        return path.normalized
    }

    static func invalid(_ message: String) -> BusError {
        BusError(name: BusError.Names.invalidArgs, message: message)
    }

    /// The filter the dialog enforces: `current_filter` when given, else the first of `filters`
    /// (the one a dialog selects at first), else none.
    var filterInForce: PortalFilter? { currentFilter ?? filters.first }

    /// `accept_label` without its mnemonic underline (`_Open` is Open, `__` an underscore).
    var acceptLabelText: String? {
        guard let acceptLabel, !acceptLabel.isEmpty else { return nil }
        var text = ""
        var escaped = false
        for character in acceptLabel {
            if character == "_" && !escaped {
                escaped = true
                continue
            }
            escaped = false
            text.append(character)
        }
        return text
    }
}

/// `(sa(us))`: a filter's name and its patterns, each a glob (0) or a MIME type (1).
struct PortalFilter: Sendable, Equatable {
    enum Pattern: Sendable, Equatable {
        case glob(String)
        case mimeType(String)
    }

    var name: String
    var patterns: [Pattern]

    init(name: String, patterns: [Pattern]) {
        self.name = name
        self.patterns = patterns
    }

    init(_ value: BusValue, option: String) throws(BusError) {
        guard case .structure(let fields) = value, fields.count == 2, let name = fields[0].stringValue,
              let items = fields[1].arrayItems
        else { throw PortalCall.invalid("option \(option) must be of type (sa(us))") }
        self.name = name
        patterns = []
        for (index, item) in items.enumerated() {
            guard case .structure(let pair) = item, pair.count == 2, let kind = pair[0].uint32Value,
                  let pattern = pair[1].stringValue
            else { throw PortalCall.invalid("option \(option) must be of type (sa(us))") }
            guard !pattern.isEmpty else { throw PortalCall.invalid("option \(option): pattern \(index) is empty") }
            guard pattern.utf8.count <= 4096 else { throw PortalCall.invalid("option \(option): pattern \(index) is longer than 4096 bytes") }
            switch kind {
            case 0: patterns.append(.glob(pattern))
            case 1:
                guard pattern.utf8.contains(UInt8(ascii: "/")) else {
                    throw PortalCall.invalid("option \(option): pattern \(index) (\(pattern)) is not a MIME type")
                }
                patterns.append(.mimeType(pattern))
            default:
                throw PortalCall.invalid("option \(option): pattern \(index) is of kind \(kind); 0 (a glob) or 1 (a MIME type)")
            }
        }
    }

    var busValue: BusValue {
        .structure([.string(name), .array(element: "(us)", patterns.map { pattern in
            switch pattern {
            case .glob(let glob): .structure([.uint32(0), .string(glob)])
            case .mimeType(let type): .structure([.uint32(1), .string(type)])
            }
        })])
    }
}

/// `(ssa(ss)s)`: a choice the app offers beside the file list (a combo box, or a check box
/// when it has no options). Presenters that can show it; the others return its default.
struct PortalChoice: Sendable, Equatable {
    var id: String
    var label: String
    /// Each option's id and label.
    var options: [(id: String, label: String)]
    var initial: String

    static func == (a: PortalChoice, b: PortalChoice) -> Bool {
        a.id == b.id && a.label == b.label && a.initial == b.initial
            && a.options.map(\.id) == b.options.map(\.id) && a.options.map(\.label) == b.options.map(\.label)
    }

    init(_ value: BusValue, option: String) throws(BusError) {
        guard case .structure(let fields) = value, fields.count == 4, let id = fields[0].stringValue,
              let label = fields[1].stringValue, let items = fields[2].arrayItems, let initial = fields[3].stringValue
        else { throw PortalCall.invalid("option \(option) must be of type (ssa(ss)s)") }
        self.id = id
        self.label = label
        options = items.compactMap { item in
            guard case .structure(let pair) = item, pair.count == 2, let id = pair[0].stringValue,
                  let label = pair[1].stringValue
            else { return nil }
            return (id, label)
        }
        self.initial = initial
    }

    /// What is returned when no presenter showed it: the default, else the first option, else
    /// (a check box) "false".
    var answer: String { dialogChoice.initial ?? "false" }

    /// As Wharf's dialogs take it: an `initial` that is none of its values (an empty one, a
    /// check box's "yes") is its default instead.
    var dialogChoice: DialogChoiceParams {
        let choice = DialogChoiceParams(id: id, label: label, options: options.map { DialogChoiceParams.Option(id: $0.id, label: $0.label) })
        let values = options.isEmpty ? ["false", "true"] : options.map(\.id)
        return DialogChoiceParams(id: choice.id, label: choice.label, options: choice.options,
                                  initial: values.contains(initial) ? initial : values[0])
    }
}
