import WharfSystem

/// A named filter of a dialog (the portal's "Images", "Text files"): a predicate the engine
/// enforces on every listed entry and every pick while it is the one selected.
///
/// A dialog with filters has one selected at a time (``DialogOptions/currentFilter`` at first);
/// the person switches between them and the pick must match the one in force, which the
/// ending reports (``DialogSelections/filter``). Filters narrow what the dialog's types and
/// `urlEnabled` already allow; they never widen it.
public struct DialogFilter: Sendable, Equatable {
    /// What the dialog shows for it.
    public var name: String
    public var predicate: URLPredicate

    public init(name: String, predicate: URLPredicate) {
        self.name = name
        self.predicate = predicate
    }

    /// The globs and content types the predicate names, as a presenter that filters by name
    /// and MIME type (zenity, GTK) shows them: its `nameMatches` globs and the filters of its
    /// `conformsTo` types. The engine still judges every pick by the predicate itself.
    func shown(types: any ContentTypeOracle) -> DialogFilters {
        var globs: [String] = []
        var identifiers: [String] = []
        func collect(_ predicate: URLPredicate) {
            switch predicate {
            case .any(let operands), .all(let operands): operands.forEach(collect)
            case .nameMatches(let glob): if !globs.contains(glob) { globs.append(glob) }
            case .conformsTo(let identifier): if !identifiers.contains(identifier) { identifiers.append(identifier) }
            default: break
            }
        }
        collect(predicate)
        var shown = identifiers.isEmpty ? DialogFilters()
            : types.filters(for: identifiers)
        if shown.allowsAllFiles { return shown }
        for glob in globs where !shown.globs.contains(glob) { shown.globs.append(glob) }
        return shown
    }
}

/// A filter as a presenter gets it: its name and what a name-and-MIME-type filter shows for it.
public struct PresentedFilter: Sendable, Equatable {
    public var name: String
    public var shown: DialogFilters

    public init(name: String, shown: DialogFilters) {
        self.name = name
        self.shown = shown
    }
}
