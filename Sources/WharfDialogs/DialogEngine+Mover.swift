import WharfFileWriting
import WharfSystem

extension DialogEngine {
    /// Presents a mover (`fileMover`), checked by ``check(_:types:)-(MoverRequest,_)``. The
    /// request's files were each found granted to the client by the server; the presenter shows
    /// them, and the human's choice of a folder is the consent to move them there. See the
    /// importer's `present` for `isLive`, the announcer and the error contract.
    public func present(
        client: ClientID, app: String, request checked: CheckedRequest<MoverRequest>,
        presenter: any DialogPresenter, types: any ContentTypeOracle,
        isLive: () -> Bool = { true },
        announcer: any DialogAnnouncer = NoAnnouncement()
    ) throws(DialogError) -> DialogID {
        let request = checked.request
        let options = request.options
        let directory = initialDirectory(app: app, options: options)
        // A folder picker's filters and rules: the listing shows folders to go into and to choose.
        let folderTypes = ["public.folder"]
        let filters = types.filters(for: folderTypes)
        let rules = SelectionRules(kind: .mover, contentTypes: folderTypes, browserOptions: options.browserOptions,
                                   urlEnabled: nil, types: types)
        let plan = MoverPlan(files: request.files)
        return try register(
            client: client, app: app, kind: .mover, presentationId: request.presentationId, options: options,
            directory: directory, presenter: presenter, types: types, rules: rules, exporter: nil, mover: plan,
            allowsMultipleSelection: false, isLive: isLive, announcer: announcer
        ) { id, responder in
            PresentedDialog(
                id: id, client: client, options: options, filters: filters, directory: directory, types: types,
                details: .mover(.init(files: request.files.map(\.path))),
                responder: responder)
        }
    }

    /// The human chose the folder to move the files into.
    ///
    /// - Parameters:
    ///   - folder: a `file:` URL or an absolute path; a link to a folder is followed, now.
    ///   - resolution: what the human chose for names already taken in the folder (replace
    ///     them, or keep both); nil when they were not asked.
    ///   - canAsk: whether the presenter can ask the human about taken names. When it can (a
    ///     frontend), a taken name without a resolution is refused with
    ///     ``DialogError/nameConflict(folder:names:)`` and the dialog stays open for it to ask;
    ///     when it cannot (a script, a desktop dialog), the dialog ends failed with
    ///     `nameConflict`, naming the file, and nothing is moved.
    /// - Throws: ``DialogError/rejectedChoice(url:reason:)`` or `nameConflict`, and the dialog
    ///   stays open; ``DialogError/alreadyEnded(_:)`` if it ended meanwhile.
    ///
    /// The files are then moved on the client's queue of writes; `accepted` is delivered first.
    /// The dialog ends when the move returns: completed with the new places, in the order the
    /// app gave the files, or failed or cancelled with every file where it was.
    public func move(
        client: ClientID, id: DialogID, folder: String, resolution: MoveConflictResolution?, canAsk: Bool,
        accepted: (@Sendable () -> Void)? = nil
    ) throws(DialogError) {
        let plan = try withRecord(client: client, id: id, kind: .mover) { record in record.mover! }
        let chosen = try MoveJob.folder(folder, plan: plan)
        let conflicts: [[UInt8]]
        do {
            conflicts = resolution == nil ? try mover.conflicts(plan.items, in: chosen) : []
        } catch {
            throw .rejectedChoice(url: chosen.url, reason: "its names cannot be checked: \(error)")
        }
        if !conflicts.isEmpty && canAsk { throw .nameConflict(folder: chosen, names: conflicts) }
        let job = MoveJob(plan: plan, folder: chosen, resolution: resolution ?? .fail)

        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id, kind: .mover)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            if let accepted { post(client, accepted) }
            record.isShowing = false
            dropListings(of: record)
            if conflicts.isEmpty {
                startMoving(record, job)
            } else {
                end(record, .failed(Self.conflictFailure(folder: chosen, names: conflicts)))
            }
        }
    }

    /// Lock held. Hands the move to the client's queue of writes (one at a time, as its
    /// exports); the dialog ends when the mover returns.
    func startMoving(_ record: DialogRecord, _ job: MoveJob) {
        let cancellation = ExportCancellation()
        record.phase = .writing(.move(job), cancellation, stop: nil)
        let (client, id, mover) = (record.client, record.id, self.mover)
        let queue = state.clients[client]?.exports ?? SerialQueue(pool: .blocking)
        queue.run { [self] in
            let result: Result<[FilePath], MoveError> = Result { () throws(MoveError) in
                try mover.move(job.plan.items, into: job.folder, resolution: job.resolution,
                               progress: { [weak self] progress in self?.forward(progress, client: client, id: id) },
                               cancellation: cancellation)
            }
            finishMoving(client: client, id: id, job: job, result: result)
        }
    }

    /// The mover returned: the dialog ends with what really happened on disk.
    func finishMoving(client: ClientID, id: DialogID, job: MoveJob, result: Result<[FilePath], MoveError>) {
        // The moved files are read before taking the lock: they are in place.
        let ending: Ending
        switch result {
        case .success(let paths):
            ending = Self.moved(job, to: paths)
        case .failure(.cancelled):
            ending = .cancelled(.client)  // the reason recorded at the stop request wins below
        case .failure(.nameConflict(let path)):
            ending = .failed(DialogFailure(
                code: .nameConflict,
                message: "\(path) appeared after the folder was chosen, and replacing it was not agreed; nothing was moved",
                url: path.url))
        case .failure(.sourceChanged(let path)):
            ending = .failed(DialogFailure(
                code: .moveFailed, message: "\(path) is no longer the file the app was given (it changed or was replaced); nothing was moved",
                url: path.url))
        case .failure(.unsupportedFileType(let path, let kind)):
            ending = .failed(DialogFailure(
                code: .moveFailed, message: "\(path) is \(kind), which is never moved; nothing was moved", url: path.url))
        case .failure(.failed(let path, let cause)):
            ending = .failed(DialogFailure(
                code: .moveFailed, message: "could not move \(path): \(cause); nothing was moved", url: path.url))
        }

        changing(client) {
            guard let record = state.dialogs[id], record.client == client,
                  case .writing(_, _, let stop) = record.phase
            else { return }
            var final = ending
            if case .cancelled = final, let stop { final = .cancelled(stop) }
            end(record, final)
        }
    }

    /// The completion for files moved to `paths`: each as it is now, with where it came from
    /// and the rights the client had to it. A file that cannot be read at its new place (moved
    /// on by someone else already) fails the dialog, naming it: its rights are not handed on
    /// to whatever stands there.
    static func moved(_ job: MoveJob, to paths: [FilePath]) -> Ending {
        var files: [ChosenFile] = []
        for (file, path) in zip(job.plan.files, paths) {
            do {
                var moved = try ChosenFile.unfollowed(at: path, forWriting: !file.readOnly, isSymlink: file.isSymlink)
                moved.movedFrom = file
                files.append(moved)
            } catch {
                return .failed(DialogFailure(
                    code: .moveFailed, message: "\(file.path) was moved to \(path) but could not be found there afterwards: \(error)",
                    url: path.url))
            }
        }
        return .completed(files, contentTypes: nil, directory: job.folder)
    }

    /// The failure of a mover whose presenter could not ask about taken names.
    static func conflictFailure(folder: FilePath, names: [[UInt8]]) -> DialogFailure {
        DialogFailure(
            code: .nameConflict,
            message: DialogError.conflictSentence(folder: folder, names: names)
                + ", and the presenter cannot ask whether to replace them or keep both; nothing was moved",
            url: names.first.map { folder.appending($0).url })
    }
}
