import WharfFileWriting
import WharfSystem

extension DialogEngine {
    /// Presents an exporter (`fileExporter`, either form), checked by
    /// ``check(_:types:)-(ExporterRequest,_)``. See the importer's `present` for `isLive`, the
    /// announcer and the error contract.
    public func present(
        client: ClientID, app: String, request checked: CheckedRequest<ExporterRequest>,
        presenter: any DialogPresenter, types: any ContentTypeOracle,
        isLive: () -> Bool = { true },
        announcer: any DialogAnnouncer = NoAnnouncement()
    ) throws(DialogError) -> DialogID {
        let request = checked.request
        let options = request.options
        let plan = ExporterPlan(request)
        let directory = initialDirectory(app: app, options: options)
        let filters = types.filters(for: plan.offered)
        let filenames = plan.filenames(choosing: plan.defaultChoice, types: types)
        let choices = plan.offered.map { type in
            PresentedDialog.TypeChoice(contentType: type, description: types.description(of: type),
                                       filenames: plan.filenames(choosing: type, types: types))
        }
        let rules = SelectionRules(
            kind: .exporter, contentTypes: plan.offered,
            browserOptions: options.browserOptions, urlEnabled: options.urlEnabled, types: types)
        return try register(
            client: client, app: app, kind: .exporter, presentationId: request.presentationId, options: options,
            directory: directory, presenter: presenter, types: types, rules: rules, exporter: plan,
            allowsMultipleSelection: false, isLive: isLive, announcer: announcer
        ) { id, responder in
            PresentedDialog(
                id: id, client: client, options: options, filters: filters, directory: directory, types: types,
                details: .exporter(.init(
                    filename: filenames.count == 1 ? filenames[0] : nil, filenames: filenames,
                    contentTypes: plan.offered, filenameLabel: options.filenameLabel, choices: choices,
                    savesIntoFolder: plan.savesIntoFolder)),
                responder: responder)
        }
    }

    /// The human chose where (and as what) to save.
    ///
    /// - Parameters:
    ///   - url: one document: the file to write; several: the directory to write them into, each
    ///     under its own name. A `file:` URL or an absolute path; nil means the suggestion (the
    ///     dialog's directory, plus the suggested name for one document).
    ///   - contentType: one of the offered types; nil keeps the default.
    ///   - overwrite: the human confirmed replacing existing files.
    /// - Throws: ``DialogError/fileExists(url:)``, ``DialogError/contentTypeNotOffered(_:offered:)``
    ///   or ``DialogError/rejectedChoice(url:reason:)``, and the dialog stays open.
    ///
    /// Lazy documents are then asked for (``DialogEvent/snapshotNeeded(_:documentIndex:contentType:)``);
    /// once every document has bytes they are written on a pool thread. `accepted` is delivered
    /// first, before any of that.
    public func save(
        client: ClientID, id: DialogID, url: String?, contentType: String?, overwrite: Bool,
        accepted: (@Sendable () -> Void)? = nil
    ) throws(DialogError) {
        let (plan, directory, types) = try withRecord(client: client, id: id, kind: .exporter) { record in
            (record.exporter!, record.directory, record.types)
        }
        let job = try ExportJob.choose(
            url: url, contentType: contentType, overwrite: overwrite,
            plan: plan, dialogDirectory: directory, types: types)

        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id, kind: .exporter)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            if let accepted { post(client, accepted) }
            record.isShowing = false
            dropListings(of: record)
            if plan.destinationOnly {
                // Checked like a write, and nothing written: the destinations are the answer.
                let files = job.destinations.map(ChosenFile.destination(at:))
                end(record, .completed(files, contentTypes: job.contentTypes, directory: job.directory))
                return
            }
            let pending = job.pendingSnapshots
            if pending.isEmpty {
                startWriting(record, job)
            } else {
                record.phase = .awaitingSnapshots(job)
                for index in pending {
                    emit(client, .snapshotNeeded(id, documentIndex: index, contentType: job.contentTypes[index]))
                }
            }
        }
    }

    /// Checks a lazy document's snapshot before it is provided: one named by path must lead to
    /// something that can be read to its end now (a file, or a pipe the client feeds), not to
    /// nothing or a folder, so that an unusable answer fails as `snapshotFailed` rather than as
    /// a write that failed later. Reads the disk: call it before ``provideSnapshot``, without
    /// the engine's lock.
    public static func checkSnapshot(_ source: ExportSource, field: String) throws(DialogError) {
        guard case .file(let path) = source else { return }
        try RequestValidation.validate(sourcePath: path, field: field, allowingPipes: true)
    }

    /// The client produced a lazy document's bytes. Writing starts once every document has them.
    ///
    /// - Throws: ``DialogError/notAwaitingSnapshot(_:documentIndex:)`` if this document was not
    ///   asked for or was already provided; ``DialogError/alreadyEnded(_:)`` if the dialog ended.
    public func provideSnapshot(
        client: ClientID, id: DialogID, documentIndex: Int, source: ExportSource
    ) throws(DialogError) {
        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id, kind: .exporter)
            guard case .awaitingSnapshots(var job) = record.phase, job.sources.indices.contains(documentIndex),
                  job.sources[documentIndex] == nil
            else { throw .notAwaitingSnapshot(id, documentIndex: documentIndex) }
            job.sources[documentIndex] = source
            if job.pendingSnapshots.isEmpty {
                startWriting(record, job)
            } else {
                record.phase = .awaitingSnapshots(job)
            }
        }
    }

    /// The client could not produce a lazy document (its snapshot request failed or was
    /// cancelled): the dialog fails with `snapshotFailed` and nothing is written.
    public func snapshotFailed(
        client: ClientID, id: DialogID, documentIndex: Int, message: String
    ) throws(DialogError) {
        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id, kind: .exporter)
            guard case .awaitingSnapshots(let job) = record.phase, job.sources.indices.contains(documentIndex),
                  job.sources[documentIndex] == nil
            else { throw .notAwaitingSnapshot(id, documentIndex: documentIndex) }
            let destination = job.destinations[documentIndex]
            end(record, .failed(DialogFailure(
                code: .snapshotFailed,
                message: "the client could not produce document \(documentIndex) for \(destination): \(message); nothing was written",
                url: destination.url)))
        }
    }

    /// Lock held. Hands the job to the client's export queue (its writes go one at a time);
    /// the dialog ends when the writer returns.
    func startWriting(_ record: DialogRecord, _ job: ExportJob) {
        let cancellation = ExportCancellation()
        record.phase = .writing(.export(job), cancellation, stop: nil)
        let (client, id, items, writer) = (record.client, record.id, job.items, self.writer)
        // The record exists: the dialog being written is one of the client's open dialogs.
        let exports = state.clients[client]?.exports ?? SerialQueue(pool: .blocking)
        exports.run { [self] in
            var failure: ExportError?
            do throws(ExportError) {
                try writer.write(
                    items,
                    progress: { [weak self] progress in self?.forward(progress, client: client, id: id) },
                    cancellation: cancellation)
            } catch {
                failure = error
            }
            finishWriting(client: client, id: id, job: job, failure: failure)
        }
    }

    /// The writer returned: the dialog ends with what really happened on disk.
    func finishWriting(client: ClientID, id: DialogID, job: ExportJob, failure: ExportError?) {
        // Identities are read before taking the lock: the files are in place and ours.
        var ending: Ending
        switch failure {
        case nil:
            var files: [ChosenFile] = []
            var vanished: (FilePath, SystemError)?
            for destination in job.destinations {
                do {
                    files.append(try ChosenFile.written(at: destination))
                } catch {
                    vanished = (destination, error)
                    break
                }
            }
            if let (path, error) = vanished {
                ending = .failed(DialogFailure(
                    code: .writeFailed, message: "\(path) was written but could not be found afterwards: \(error)",
                    url: path.url))
            } else {
                ending = .completed(files, contentTypes: job.contentTypes, directory: job.directory)
            }
        case .cancelled:
            ending = .cancelled(.client)  // the reason recorded at the stop request wins below
        case .exists(let path):
            ending = .failed(DialogFailure(
                code: .fileExists,
                message: "\(path) appeared after it was chosen, and replacing it was not agreed; nothing was written",
                url: path.url))
        case .failed(let path, let cause):
            ending = .failed(DialogFailure(
                code: .writeFailed, message: "could not write \(path): \(cause); nothing was written",
                url: path.url))
        }

        let ended = ending
        changing(client) {
            guard let record = state.dialogs[id], record.client == client,
                  case .writing(_, _, let stop) = record.phase
            else { return }
            var ending = ended
            if case .cancelled = ending, let stop { ending = .cancelled(stop) }
            end(record, ending)
        }
    }

    /// Forwards the writer's (or the mover's) progress for exports and moves over 1 MiB, at
    /// most ten events a second, and never once the app asked it to stop or the dialog ended.
    func forward(_ progress: ExportProgress, client: ClientID, id: DialogID) {
        guard progress.totalBytes > Self.progressThreshold else { return }
        changing(client) {
            guard let record = state.dialogs[id], record.client == client,
                  case .writing(_, _, stop: nil) = record.phase
            else { return }
            let now = scheduler.now
            // A millisecond of slack: clocks tick in steps, and 0.3 - 0.2 < 0.1 in binary.
            guard now - record.lastProgress >= Self.progressInterval - 0.001 else { return }
            record.lastProgress = now
            emit(client, .progress(id, written: progress.bytesWritten, total: progress.totalBytes))
        }
    }

    /// Exports at most this large report no progress.
    static var progressThreshold: Int64 { 1 << 20 }
    /// The shortest time between two progress events, in seconds.
    static var progressInterval: Double { 0.1 }
}
