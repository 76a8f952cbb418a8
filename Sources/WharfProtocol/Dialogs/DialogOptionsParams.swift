import WharfJSON

/// `options`: the view modifiers that configure a dialog (`fileDialog…`).
public struct DialogOptionsParams: ProtocolValue {
    /// A path or `file:` URL.
    public var defaultDirectory: String?
    public var title: String?
    public var message: String?
    public var confirmationLabel: String?
    public var browserOptions: [String]
    public var urlEnabled: URLPredicateParams?
    public var importsUnresolvedAliases: Bool
    public var customizationId: String?
    public var timeoutMs: Int64?
    /// Exporters only.
    public var filenameLabel: String?
    /// Named filters the person switches between, and the index of the one selected at first.
    public var filters: [NamedFilterParams]
    public var currentFilter: Int64?
    /// Choices shown beside the file list.
    public var choices: [DialogChoiceParams]

    /// The browser options the protocol knows.
    public static let knownBrowserOptions = ["enumeratePackages", "includeHiddenFiles", "displayFileExtensions"]

    public init(defaultDirectory: String? = nil, title: String? = nil, message: String? = nil,
                confirmationLabel: String? = nil, browserOptions: [String] = [], urlEnabled: URLPredicateParams? = nil,
                importsUnresolvedAliases: Bool = false, customizationId: String? = nil, timeoutMs: Int64? = nil,
                filenameLabel: String? = nil, filters: [NamedFilterParams] = [], currentFilter: Int64? = nil,
                choices: [DialogChoiceParams] = []) {
        self.filters = filters
        self.currentFilter = currentFilter
        self.choices = choices
        self.defaultDirectory = defaultDirectory
        self.title = title
        self.message = message
        self.confirmationLabel = confirmationLabel
        self.browserOptions = browserOptions
        self.urlEnabled = urlEnabled
        self.importsUnresolvedAliases = importsUnresolvedAliases
        self.customizationId = customizationId
        self.timeoutMs = timeoutMs
        self.filenameLabel = filenameLabel
    }

    /// A request's `options` (absent: the defaults). Only an exporter has a filename field, so
    /// in any other request a `filenameLabel` is refused, not ignored.
    static func read(from reader: inout FieldReader, exporter: Bool) throws(ProtocolError) -> DialogOptionsParams {
        let options = try reader.optionalObject("options") { reader throws(ProtocolError) in
            try DialogOptionsParams(reading: &reader)
        } ?? DialogOptionsParams()
        if !exporter && options.filenameLabel != nil {
            throw ProtocolError("options.filenameLabel: only exporters have a filename field")
        }
        return options
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        defaultDirectory = try reader.optionalString("defaultDirectory")
        title = try reader.optionalString("title")
        message = try reader.optionalString("message")
        confirmationLabel = try reader.optionalString("confirmationLabel")
        browserOptions = try reader.optionalStrings("browserOptions") ?? []
        for name in browserOptions where !Self.knownBrowserOptions.contains(name) {
            throw ProtocolError("\(reader.name("browserOptions")): unknown option \(name) "
                + "(\(Self.knownBrowserOptions.joined(separator: ", ")))")
        }
        urlEnabled = try reader.raw("urlEnabled").map { value throws(ProtocolError) in
            try URLPredicateParams(value, path: reader.name("urlEnabled"))
        }
        importsUnresolvedAliases = try reader.bool("importsUnresolvedAliases", default: false)
        customizationId = try reader.optionalIdentifier("customizationId")
        timeoutMs = try reader.optionalInt("timeoutMs", in: 1...86_400_000)
        filenameLabel = try reader.optionalString("filenameLabel")
        filters = try reader.optionalObjects("filters") { reader throws(ProtocolError) in try NamedFilterParams(reading: &reader) } ?? []
        currentFilter = try reader.optionalInt("currentFilter", in: 0...Int64(Int32.max))
        choices = try reader.optionalObjects("choices") { reader throws(ProtocolError) in try DialogChoiceParams(reading: &reader) } ?? []
    }

    public var json: JSON {
        var object = JSONObject()
        object.set("defaultDirectory", defaultDirectory)
        object.set("title", title)
        object.set("message", message)
        object.set("confirmationLabel", confirmationLabel)
        if !browserOptions.isEmpty { object.set("browserOptions", browserOptions) }
        object.set("urlEnabled", urlEnabled)
        if importsUnresolvedAliases { object["importsUnresolvedAliases"] = true }
        object.set("customizationId", customizationId)
        object.set("timeoutMs", timeoutMs)
        object.set("filenameLabel", filenameLabel)
        if !filters.isEmpty { object.set("filters", filters) }
        object.set("currentFilter", currentFilter)
        if !choices.isEmpty { object.set("choices", choices) }
        return .object(object)
    }

    public static var example: DialogOptionsParams {
        DialogOptionsParams(defaultDirectory: "file:///home/me/Pictures", title: "Choose a cover", message: "PNG or JPEG",
                            confirmationLabel: "Use", browserOptions: ["includeHiddenFiles"],
                            urlEnabled: .example, customizationId: "covers", timeoutMs: 60_000)
    }
}
