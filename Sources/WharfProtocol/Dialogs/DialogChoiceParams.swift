import WharfJSON

/// One of `options.choices` (and of `presenter/show`'s `choices`): a check box when it has no
/// `options`, else a list of options; `initial` is the value it starts with (absent: `false`,
/// or the first option).
public struct DialogChoiceParams: ProtocolValue {
    public var id: String
    public var label: String
    public var options: [Option]
    public var initial: String?

    public struct Option: ProtocolValue {
        public var id: String
        public var label: String

        public init(id: String, label: String) {
            self.id = id
            self.label = label
        }

        public init(reading reader: inout FieldReader) throws(ProtocolError) {
            id = try reader.string("id")
            label = try reader.string("label")
        }

        public var json: JSON { ["id": .string(id), "label": .string(label)] }
        public static var example: Option { Option(id: "utf8", label: "UTF-8") }
    }

    public init(id: String, label: String, options: [Option] = [], initial: String? = nil) {
        self.id = id
        self.label = label
        self.options = options
        self.initial = initial
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        id = try reader.string("id")
        label = try reader.string("label")
        options = try reader.optionalObjects("options") { reader throws(ProtocolError) in try Option(reading: &reader) } ?? []
        initial = try reader.optionalString("initial")
    }

    public var json: JSON {
        var object: JSONObject = ["id": .string(id), "label": .string(label)]
        if !options.isEmpty { object.set("options", options) }
        object.set("initial", initial)
        return .object(object)
    }

    public static var example: DialogChoiceParams {
        DialogChoiceParams(id: "encoding", label: "Encoding", options: [.example, Option(id: "latin1", label: "Latin-1")], initial: "utf8")
    }
}

/// Choice values by choice id (`{"encoding": "latin1", "readOnly": "true"}`), as `dialog/choose`
/// sends them and `dialog/completed` reports them; written with sorted keys.
public func choiceValuesJSON(_ values: [String: String]) -> JSON {
    var object = JSONObject()
    for key in values.keys.sorted() { object[key] = .string(values[key]!) }
    return .object(object)
}
