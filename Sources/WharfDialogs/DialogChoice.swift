/// A choice an app offers beside the file list (the portal's `choices`: "Encoding", "Open
/// read-only"): a check box when it has no options, else one of its options. The person's value
/// of each comes back with the dialog's ending (``DialogSelections``).
public struct DialogChoice: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        public var id: String
        public var label: String

        public init(id: String, label: String) {
            self.id = id
            self.label = label
        }
    }

    public var id: String
    public var label: String
    /// Empty: a check box, whose values are `true` and `false`.
    public var options: [Option]
    /// The value it starts with: an option's id, or `true`/`false` for a check box.
    public var initial: String

    /// Without `initial`, a check box starts `false` and an option list at its first option.
    /// One that is not among ``values`` is refused when the dialog is presented.
    public init(id: String, label: String, options: [Option] = [], initial: String? = nil) {
        self.id = id
        self.label = label
        self.options = options
        self.initial = initial ?? (options.first?.id ?? "false")
    }

    public var isCheckBox: Bool { options.isEmpty }

    /// The values it may take.
    public var values: [String] { isCheckBox ? ["false", "true"] : options.map(\.id) }

    /// What to show for `value`: its option's label, or the check box's state.
    public func label(of value: String) -> String {
        if isCheckBox { return value == "true" ? "on" : "off" }
        return options.first { $0.id == value }?.label ?? value
    }

    /// The value after `value`, cycling (a check box toggles).
    public func value(after value: String) -> String {
        let all = values
        guard let index = all.firstIndex(of: value) else { return all[0] }
        return all[(index + 1) % all.count]
    }
}

/// What the person selected besides the files: the filter in force at the pick (an index into
/// ``DialogOptions/filters``; nil when the dialog has none) and each choice's value, in the
/// order of ``DialogOptions/choices``.
public struct DialogSelections: Sendable, Equatable {
    public var filter: Int?
    public var choices: [Value]

    public struct Value: Sendable, Equatable {
        public var id: String
        public var value: String

        public init(id: String, value: String) {
            self.id = id
            self.value = value
        }
    }

    public init(filter: Int?, choices: [Value]) {
        self.filter = filter
        self.choices = choices
    }

    /// Nothing to report: a dialog without filters or choices.
    public var isEmpty: Bool { filter == nil && choices.isEmpty }
}
