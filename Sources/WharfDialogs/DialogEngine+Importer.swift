import WharfSystem

extension DialogEngine {
    /// Presents an importer (`fileImporter`).
    ///
    /// The request was checked (``check(_:types:)-(ImporterRequest,_)``: nothing is presented
    /// when it is refused); the dialog is registered, `announcer` tells the client (see
    /// ``DialogAnnouncer``), the presenter is shown it and the timeout armed. `isLive` says
    /// whether the client's session is still running; it is asked under the engine's lock, just
    /// before the dialog is registered, and a session that has ended gets
    /// ``DialogError/clientEnded`` (it must say it has ended before it calls
    /// ``disconnect(client:)``). Reads the disk and the directory memory: call it off the read
    /// loop.
    ///
    /// - Throws: ``DialogError/alreadyPresented(presentationId:dialog:)``,
    ///   ``DialogError/tooManyDialogs(limit:)`` or ``DialogError/clientEnded``.
    public func present(
        client: ClientID, app: String, request checked: CheckedRequest<ImporterRequest>,
        presenter: any DialogPresenter, types: any ContentTypeOracle,
        isLive: () -> Bool = { true },
        announcer: any DialogAnnouncer = NoAnnouncement()
    ) throws(DialogError) -> DialogID {
        let request = checked.request
        let options = request.options
        let directory = initialDirectory(app: app, options: options)
        let filters = types.filters(for: request.allowedContentTypes)
        let rules = SelectionRules(
            kind: .importer, contentTypes: request.allowedContentTypes,
            browserOptions: options.browserOptions, urlEnabled: options.urlEnabled, types: types)
        return try register(
            client: client, app: app, kind: .importer, presentationId: request.presentationId, options: options,
            directory: directory, presenter: presenter, types: types, rules: rules, exporter: nil,
            allowsMultipleSelection: request.allowsMultipleSelection, isLive: isLive, announcer: announcer
        ) { id, responder in
            PresentedDialog(
                id: id, client: client, options: options, filters: filters, directory: directory, types: types,
                details: .importer(.init(allowedContentTypes: request.allowedContentTypes,
                                         allowsMultipleSelection: request.allowsMultipleSelection)),
                responder: responder)
        }
    }

    /// The human picked files in an importer. Each URL (a `file:` URL or an absolute path) must
    /// exist, be enabled by the dialog's rules exactly as its listing showed, and open for
    /// reading; one unless multiple selection is on. On success the dialog completes with the
    /// files, symlinks resolved (unless unresolved aliases were asked for) and identities
    /// recorded.
    ///
    /// `accepted` is delivered first, before the dialog's ending, in the client's order (a
    /// frontend's answer to its `dialog/choose` thus precedes `dialog/presentationChanged` and
    /// `dialog/completed`).
    ///
    /// - Throws: ``DialogError/rejectedChoice(url:reason:)`` naming the offending URL, and the
    ///   dialog stays open; ``DialogError/alreadyEnded(_:)`` if it ended meanwhile.
    public func choose(client: ClientID, id: DialogID, urls: [String], accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        // Look the dialog up, validate without the lock (that touches the disk), then commit
        // only if nothing ended the dialog meanwhile.
        let (rules, types, multiple, unresolved) = try withRecord(client: client, id: id, kind: .importer) { record in
            (record.rules, record.types, record.allowsMultipleSelection, record.importsUnresolvedAliases)
        }
        let choice = try ImportChoice.validate(
            urls: urls, allowsMultipleSelection: multiple, importsUnresolvedAliases: unresolved,
            rules: rules, types: types)

        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id, kind: .importer)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            if let accepted { post(client, accepted) }
            record.isShowing = false
            if case .anyOf? = rules.filter { record.selectedFilter = choice.matchedFilter }
            end(record, .completed(
                choice.files, contentTypes: nil,
                directory: Self.endedIn(chosen: choice.firstChosenPath, lastListed: record.lastListedDirectory)))
        }
    }

    /// Where the user ended up: the directory last listed when the choice was made in it (or is
    /// it), otherwise the chosen file's directory.
    static func endedIn(chosen: FilePath, lastListed: FilePath?) -> FilePath {
        let parent = chosen.directory
        if let lastListed, lastListed == parent || lastListed == chosen { return lastListed }
        return parent
    }

    /// Runs `body` on a live dialog in its choosing stage, under the lock.
    func withRecord<T>(
        client: ClientID, id: DialogID, kind: DialogKind?, _ body: (DialogRecord) -> T
    ) throws(DialogError) -> T {
        try lock.withLock { () throws(DialogError) -> T in
            let record = if let kind { try lookup(client: client, id: id, kind: kind) } else { try lookup(client: client, id: id) }
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            return body(record)
        }
    }
}
