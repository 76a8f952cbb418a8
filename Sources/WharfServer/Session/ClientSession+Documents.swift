import Glibc
import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfFileWriting
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension ClientSession {
    /// What a document's `contents` (or a snapshot's) exports.
    ///
    /// Over standard I/O, `path` names any file the client's process could open itself (it is
    /// that process's own file). Over the daemon the client is another process, perhaps a
    /// sandboxed one, and Wharf reads as the user: a `path` is read only through a grant that
    /// covers it (a file a dialog gave the client), opened and checked as `resolveAccess`
    /// would; for any other file the client passes the file itself, open, over the socket
    /// (`{"fd": N}`), which proves it may read it. A document held open counts against its
    /// app's budget until its descriptor closes (``counted(_:field:)``).
    func exportSource(_ contents: DocumentContents, field: String) throws(ResponseError) -> ExportSource {
        let source = try openSource(contents, field: field)
        if case .descriptor(let descriptor, _) = source { try counted(descriptor, field: field) }
        return source
    }

    /// Counts `descriptor` against the budgets of documents held open over the daemon
    /// (``ClientOrigin/documentBudgets``) for as long as it stays open: whatever closes it (the
    /// export written, the dialog cancelled, the session gone) gives it back.
    private func counted(_ descriptor: FileDescriptor, field: String) throws(ResponseError) {
        guard let budgets = origin.documentBudgets else { return }
        guard let app = budgets.appFiles.charge(1) else {
            throw ResponseError(WharfErrorCode.tooManyDialogs, "\(field): this app's exporters hold \(budgets.appFiles.limit) documents "
                + "open already (--max-open-documents-per-app); one of its exporters must end first")
        }
        guard let all = budgets.allFiles.charge(1) else {
            throw ResponseError(WharfErrorCode.tooManyDialogs, "\(field): the daemon holds \(budgets.allFiles.limit) documents open "
                + "for all apps already (half its descriptor limit); try again once some exporters have ended")
        }
        descriptor.holdWhileOpen((app, all))
    }

    /// Counts the bytes of `request`'s `text` and `base64` documents against the budgets of
    /// bytes held by open exporters over the daemon (``ClientOrigin/documentBudgets``): what is
    /// returned holds them until it is let go (``keep(_:until:)``). Nil when there is nothing
    /// to count.
    func chargeDocumentBytes(_ request: ExporterRequest) throws(ResponseError) -> (any Sendable)? {
        guard let budgets = origin.documentBudgets else { return nil }
        let bytes = Self.documentBytes(request)
        guard bytes > 0 else { return nil }
        guard let app = budgets.appBytes.charge(bytes) else {
            throw ResponseError(WharfErrorCode.tooManyDialogs, "documents: this app's exporters hold \(budgets.appBytes.bytesHeld) "
                + "bytes of documents already, and these \(bytes) would pass \(budgets.appBytes.limit) (--max-document-bytes-per-app); "
                + "one of its exporters must end first, or pass the file instead ({\"fd\": N})")
        }
        guard let all = budgets.allBytes.charge(bytes) else {
            throw ResponseError(WharfErrorCode.tooManyDialogs, "documents: the daemon holds \(budgets.allBytes.limit) bytes of "
                + "documents for all apps already; try again once some exporters have ended, or pass the file instead ({\"fd\": N})")
        }
        return (app, all)
    }

    private static func documentBytes(_ request: ExporterRequest) -> Int {
        request.documents.reduce(0) { total, document in
            if case .bytes(let bytes)? = document.contents { return total + bytes.count }
            return total
        }
    }

    private func openSource(_ contents: DocumentContents, field: String) throws(ResponseError) -> ExportSource {
        switch contents {
        case .descriptor(let number):
            guard let passed = connection.descriptors else {
                let how = origin.transport == .bridge ? "through wharf --connect (which carries no descriptors)" : "over standard I/O"
                throw .invalidParams("\(field).fd: descriptors can be passed only over the daemon's socket, not \(how); "
                    + "send text, base64, or a path the client holds a grant for")
            }
            guard let descriptor = passed.take(Int(number)) else {
                throw .invalidParams("\(field).fd: no descriptor \(number) is waiting on this connection (\(passed.received) were "
                    + "passed so far, numbered from 0, each usable once)")
            }
            guard descriptor.isOpenForReading else {
                throw .invalidParams("\(field).fd: descriptor \(number) is not open for reading")
            }
            let status = try? descriptor.status()
            if status?.kind == .directory {
                throw .invalidParams("\(field).fd: descriptor \(number) is a folder, not a file")
            }
            // A device is never a document: /dev/zero was "read to its end", and the export's
            // hidden temporary grew at disk speed until the dialog was cancelled. A FIFO or a
            // socket is read to its end, which whoever writes into it decides.
            if let status, status.isDevice {
                throw .invalidParams("\(field).fd: descriptor \(number) is \(status.specialKindDescription), which is never a document")
            }
            return .descriptor(descriptor, label: descriptor.linkTarget() ?? FilePath("descriptor-\(number)")!)
        case .path(let raw) where origin.isDaemonClient:
            let denial: AccessError
            do {
                let (descriptor, path) = try server.access.openForReading(client: accessClient, url: raw)
                return .descriptor(descriptor, label: path)
            } catch {
                denial = error
            }
            if let opener = origin.opener { return try openThroughBridge(raw, opener, field: field) }
            throw ResponseError(WharfErrorCode.accessDenied, "\(field).path: \(denial.response.message); over the daemon a path "
                + "is read only through a grant covering it: pass the open file over the socket instead ({\"fd\": N})")
        default:
            return try ExportSource(contents, field: field)
        }
    }

    /// A bridged client's path: opened by its bridge, which runs with the client's rights (and
    /// sees its files as it does), so what opens is what the client could read itself. Like
    /// a path over standard I/O, it must be a regular file.
    private func openThroughBridge(_ raw: String, _ opener: any ClientFileOpener, field: String) throws(ResponseError) -> ExportSource {
        guard let path = FileURL.pathOrURL(raw) else {
            throw .invalidParams("\(field).path: expected an absolute path or a file: URL, got \(raw)")
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try opener.openForReading(path)
        } catch {
            throw .invalidParams("\(field).path cannot be used: \(error)")
        }
        guard (try? descriptor.status())?.kind == .regular else {
            throw .invalidParams("\(field).path is not a regular file (\(path))")
        }
        // The bridge answers for the client: what it opened must be open for reading.
        guard descriptor.isOpenForReading else {
            throw .invalidParams("\(field).path cannot be used: the bridge did not open it for reading")
        }
        return .descriptor(descriptor, label: path)
    }
}

// MARK: Identifying a client's file

extension ClientSession {
    /// Over the daemon the client is another process, perhaps a sandboxed one, and Wharf reads
    /// as the user: a file is identified only as the client could read it, through a grant
    /// covering it, or opened by its bridge with its own rights (as a document's `path` is
    /// read). Otherwise the daemon told any app the type of any file of the user's, reading
    /// its first bytes (a PDF in a folder of mode 0700, say). A granted folder is identified by
    /// its kind and name. Symbolic links are followed as the grant's checks allow; with
    /// `followSymlinks` false, a path the grant reaches that is itself a link is `public.symlink`.
    func identifyForAnotherProcess(_ raw: String, _ path: FilePath, sniff: Bool, followSymlinks: Bool) -> Result<Identification, IdentifyFailure> {
        let item: AccessStore.GrantedItem
        do {
            item = try server.access.openGranted(client: accessClient, url: raw)
        } catch {
            // The grant covers it, and the file system failed: that is about the client's file.
            if case .io(let failure) = error {
                return .failure(.identification(IdentifyError(path: path, reason: .inaccessible(failure))))
            }
            guard let opener = origin.opener else {
                return .failure(.accessDenied("\(error.response.message); over the daemon a file is identified only "
                    + "through a grant covering it (its name alone: contentTypes/fromFilenameExtension)"))
            }
            // The bridge opens it as the client would: its failure is the client's own (a
            // missing file is missing, as over standard I/O).
            do {
                let opened = try opener.openForReading(path)
                item = AccessStore.GrantedItem(path: path, status: try opened.status(), file: opened)
            } catch {
                return .failure(.identification(IdentifyError(path: path, reason: .inaccessible(error))))
            }
        }
        var status = item.status
        // The grant allowed `path`; whether that name is itself a link is all this adds.
        if !followSymlinks, let own = try? FileStatus.ofLink(path), own.kind == .symlink { status = own }
        let file = FileToIdentify(name: path.lastComponent, status: status, path: path) { buffer throws(SystemError) in
            guard let opened = item.file else { return 0 }
            let head = try opened.read(at: 0, length: buffer.count)
            buffer.copyBytes(from: head)
            return head.count
        }
        return contentTypes.identify(file, sniff: sniff).forClient
    }
}
