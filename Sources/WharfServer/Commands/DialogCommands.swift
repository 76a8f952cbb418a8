import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// `wharf pick`, `wharf save` and `wharf move`: the shell's way to ask a person for a file through the
/// desktop's own dialog. Each runs a server in this process and is its client, so what the
/// person picks goes through the same checks, and what is saved is written as atomically, as
/// for an editor.
///
/// Exit status: 0 with the paths printed (exact bytes, one per line, or NUL-separated); 1 when
/// the person cancelled; 2 with a message when no dialog could be shown or it failed.
public enum DialogCommands {
    public static func run(_ command: PickCommand) -> Int32 {
        session(presenter: command.presenter, stateDirectory: command.stateDirectory) { client throws(ResponseError) in
            let request = PresentImporterRequest(
                allowedContentTypes: command.directory ? ["public.folder"] : (command.types.isEmpty ? ["public.item"] : command.types),
                allowsMultipleSelection: command.multiple,
                options: DialogOptionsParams(defaultDirectory: currentDirectory, title: command.title, customizationId: "wharf pick"))
            let dialog = try client.send(request)
            return finish(client.ending(of: dialog.dialogId), separator: command.nulSeparated ? 0 : 0x0A)
        }
    }

    public static func run(_ command: SaveCommand) -> Int32 {
        // The name to suggest: as given, else the file's own, else Untitled.
        let name = command.name ?? command.file.map { String(decoding: $0.lastComponent, as: UTF8.self) } ?? "Untitled"
        let contents: DocumentContents
        if let file = command.file {
            // The server copies the file itself (in the kernel), never through memory.
            contents = .path((file.isAbsolute ? file : FilePath.current().appending(file.bytes)).normalized.url)
        } else {
            do {
                contents = .base64(Base64.encode(try ProcessControl.takeStandardInput().readToEnd()))
            } catch {
                return fail("save: reading standard input: \(error)")
            }
        }
        return session(presenter: command.presenter, stateDirectory: command.stateDirectory) { client throws(ResponseError) in
            var type = command.type
            if type == nil, let dot = name.lastIndex(of: "."), dot != name.startIndex {
                type = try client.send(TypeForExtensionRequest(filenameExtension: String(name[name.index(after: dot)...]))).identifier
            }
            let contentType = type ?? "public.data"
            let request = PresentExporterRequest(
                documents: [ExportDocumentParams(filename: name, writableContentTypes: [contentType], contents: contents)],
                contentType: contentType, defaultFilename: name,
                options: DialogOptionsParams(defaultDirectory: currentDirectory, title: command.title, customizationId: "wharf save"))
            let dialog = try client.send(request)
            return finish(client.ending(of: dialog.dialogId), separator: 0x0A)
        }
    }

    /// Where the dialog opens when it remembers no folder of its own: where the command was run.
    private static var currentDirectory: String { FileURL.from(path: FilePath.current()) }

    /// Moves the files through a mover, as an editor would: the files are granted to the
    /// command's own session (the person named them), then a folder dialog asks where, or, with
    /// `--to`, the command presents the dialog itself and chooses the folder it was given.
    public static func run(_ command: MoveCommand) -> Int32 {
        // Relative paths from the current folder; the folders on the way resolved, the file
        // itself not followed (a link is moved as a link).
        var files: [FilePath] = []
        for file in command.files {
            let absolute = (file.isAbsolute ? file : FilePath.current().appending(file.bytes)).normalized
            guard absolute != .root else { return fail("move: / cannot be moved") }
            do {
                files.append(try absolute.directory.resolved().appending(absolute.lastComponent))
            } catch {
                return fail("move: \(absolute): \(error.reason)")
            }
        }
        let folder = command.folder.map { ($0.isAbsolute ? $0 : FilePath.current().appending($0.bytes)).normalized }
        return session(presenter: command.presenter, stateDirectory: command.stateDirectory,
                       presentsDialogs: folder != nil) { client throws(ResponseError) in
            do {
                try client.grant(files)
            } catch {
                throw ResponseError(WharfErrorCode.fileOperationFailed, "move: \(error)")
            }
            let request = PresentMoverRequest(
                urls: files.map(\.url), options: DialogOptionsParams(title: command.title, customizationId: "wharf move"))
            let dialog = try client.send(request)
            if let folder {
                guard client.notification(PresenterShowNotification.method, about: dialog.dialogId) != nil else {
                    return fail("the dialog ended without an answer")
                }
                do throws(ResponseError) {
                    _ = try client.send(ChooseRequest(
                        dialogId: dialog.dialogId, choice: .destination(url: folder.url, contentType: nil, overwrite: false),
                        conflictResolution: nil))
                } catch {
                    _ = try? client.send(DismissRequest(dialogId: dialog.dialogId))
                    return fail("move: \(error.message); nothing was moved")
                }
            }
            return finish(client.ending(of: dialog.dialogId), separator: command.nulSeparated ? 0 : 0x0A)
        }
    }

    /// Runs `body` as the client of a fresh server with the given presenter (or its own, with
    /// `presentsDialogs`).
    private static func session(presenter: PresenterSetting, stateDirectory: FilePath?, presentsDialogs: Bool = false,
                                _ body: (LocalClient) throws(ResponseError) -> Int32) -> Int32 {
        var options = ServerOptions()
        options.presenter = presenter
        options.explainsToShellUser = true
        options.stateDirectory = stateDirectory
        let server: Server
        let client: LocalClient
        do {
            server = try Server(options: options, logger: Logger(level: .error))
            client = try LocalClient(server: server)
        } catch {
            return fail("\(error)")
        }
        defer { client.close() }
        do {
            _ = try client.send(InitializeRequest(clientInfo: ClientInfo(name: "wharf-cli"),
                                                  capabilities: ClientCapabilities(presentsDialogs: presentsDialogs)))
            return try body(client)
        } catch {
            return fail(error.message)
        }
    }

    /// Prints the paths of a completed dialog; the exit status for how it ended.
    private static func finish(_ ending: LocalClient.Ending, separator: UInt8) -> Int32 {
        switch ending {
        case .completed(let completed):
            switch completed.outcome {
            case .files(let urls, _):
                var output: [UInt8] = []
                for url in urls {
                    guard let path = FileURL.path(from: url) else { return fail("the dialog answered \(url), not a file URL") }
                    output += path.bytes + [separator]
                }
                ProcessControl.writeToStandardOutput(output)
                return 0
            case .failure(let failure):
                return fail(failure.message)
            }
        case .cancelled:
            return 1
        case .lost:
            return fail("the dialog ended without an answer")
        }
    }

    private static func fail(_ message: String) -> Int32 {
        ProcessControl.writeToStandardError("wharf: \(message)\n")
        return 2
    }
}
