extension DialogEngine {
    /// The person selected the named filter at `index` (``DialogOptions/filters``): listings
    /// from now on, and every pick, are judged by it. Nil puts any of the filters in force, for
    /// a presenter that cannot tell which one the person had selected; the ending then reports
    /// the first filter the picks all match.
    ///
    /// - Throws: ``DialogError/invalidArgument(field:reason:)`` for an index the dialog has no
    ///   filter at (or a dialog without filters).
    public func selectFilter(client: ClientID, id: DialogID, index: Int?) throws(DialogError) {
        try lock.withLock { () throws(DialogError) in
            let record = try lookup(client: client, id: id)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            guard !record.filters.isEmpty else {
                throw .invalidArgument(field: "filter", reason: "this dialog has no filters")
            }
            if let index {
                guard record.filters.indices.contains(index) else {
                    throw .invalidArgument(field: "filter", reason: "\(index) is not the index of one of the \(record.filters.count) filters")
                }
                record.rules.filter = .selected(record.filters[index])
            } else {
                record.rules.filter = .anyOf(record.filters)
            }
            record.selectedFilter = index
            // Pages read under the filter that was in force are not served again.
            dropListings(of: record)
        }
    }

    /// The person set the choice `choiceId` to `value` (an option's id, or `true`/`false` for a
    /// check box).
    ///
    /// - Throws: ``DialogError/invalidArgument(field:reason:)`` for a choice the dialog does not
    ///   have or a value it cannot take.
    public func setChoice(client: ClientID, id: DialogID, choiceId: String, value: String) throws(DialogError) {
        try lock.withLock { () throws(DialogError) in
            let record = try lookup(client: client, id: id)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            guard let index = record.choices.firstIndex(where: { $0.id == choiceId }) else {
                throw .invalidArgument(field: "choices", reason: "this dialog has no choice \(choiceId)")
            }
            let values = record.choices[index].values
            guard values.contains(value) else {
                throw .invalidArgument(field: "choices.\(choiceId)", reason: "\(value) is not one of \(values.joined(separator: ", "))")
            }
            record.choiceValues[index].value = value
        }
    }

    /// What the person has selected so far (a presenter drawing the choices reads it back).
    public func selections(client: ClientID, id: DialogID) throws(DialogError) -> DialogSelections {
        try withRecord(client: client, id: id, kind: nil) { record in
            DialogSelections(filter: record.selectedFilter, choices: record.choiceValues)
        }
    }
}
