import WharfDialogs
import WharfTerminal

/// The app's named filters (in the type menu, `t`) and its choices (the choice menu, `c`):
/// each change goes to the engine at once through the responder, so the listing and every pick
/// are judged by the filter selected, and the ending reports what the person left set.
extension TerminalPicker {
    /// The type menu's items when it lists an importer's named filters; nil otherwise.
    var namedFilterItems: [String]? {
        guard dialog.importer != nil, !dialog.namedFilters.isEmpty else { return nil }
        return dialog.namedFilters.map { TerminalText.escape($0.name) }
    }

    /// The person picked the named filter at `index`: the engine enforces it from now on, and
    /// the folder is listed again under it (what it does not match shows dimmed).
    func selectFilter(_ index: Int) {
        do throws(DialogError) {
            try dialog.responder.selectFilter(index)
            typeIndex = index
            list(directory, showHidden: showHidden)
        } catch {
            notice = error.description
        }
    }

    /// One choice as its menu row shows it: a check box, or the option selected.
    func choiceRow(_ index: Int) -> String { Self.choiceRow(dialog.choices[index], value: choiceValues[index]) }

    /// `choice` at `value`: `[x] Label` for a check box, `Label: ‹Option› (2/3)` for a list.
    static func choiceRow(_ choice: DialogChoice, value: String) -> String {
        let label = TerminalText.escape(choice.label.isEmpty ? choice.id : choice.label)
        if choice.isCheckBox { return (value == "true" ? "[x] " : "[ ] ") + label }
        let position = (choice.options.firstIndex { $0.id == value } ?? 0) + 1
        return "\(label): ‹\(TerminalText.escape(choice.label(of: value)))› (\(position)/\(choice.options.count))"
    }

    /// Sets choice `index` to the value `step` places after its own (a check box toggles).
    private func changeChoice(_ index: Int, by step: Int) {
        let choice = dialog.choices[index]
        let values = choice.values
        let current = values.firstIndex(of: choiceValues[index]) ?? 0
        let value = values[((current + step) % values.count + values.count) % values.count]
        do throws(DialogError) {
            try dialog.responder.setChoice(choice.id, to: value)
            choiceValues[index] = value
        } catch {
            notice = error.description
        }
    }

    func choiceMenu(_ key: Key, selection: Int) {
        let count = dialog.choices.count
        switch key {
        case .up: mode = .choiceMenu(selection: max(selection - 1, 0))
        case .down: mode = .choiceMenu(selection: min(selection + 1, count - 1))
        case .enter, .right: changeChoice(selection, by: 1)
        case .left: changeChoice(selection, by: -1)
        case .character(let bytes) where bytes == Array(" ".utf8): changeChoice(selection, by: 1)
        case .escape, .control(0x03): mode = .browse
        case .character(let bytes) where bytes == Array("c".utf8) || bytes == Array("q".utf8): mode = .browse
        default: session.bell()
        }
    }

    func drawChoiceMenu(into frame: inout Frame, from first: Int, selection: Int) {
        frame.set(first, [Frame.Span(" Choices:", .bold)])
        for index in dialog.choices.indices {
            frame.set(first + 1 + index, [Frame.Span("   " + choiceRow(index) + " ", index == selection ? .reverse : [])])
        }
    }
}
