import Testing
import WharfJSONRPC
import WharfServer
import WharfSystem

@Suite struct CommandLineParsing {
    @Test func noArgumentsServesOverStdioWithDefaults() throws {
        #expect(try CommandLineParser.parse([]) == .serve(ServerOptions()))
        #expect(try CommandLineParser.parse(["--stdio"]) == .serve(ServerOptions()))
    }

    @Test func everyServerFlagIsRead() throws {
        var expected = ServerOptions()
        expected.framing = .ndjson
        expected.maxMessageBytes = 1000
        expected.logLevel = .debug
        expected.logFile = "/tmp/x.log"
        expected.presenter = .script("/tmp/s.json")
        expected.stateDirectory = ":memory:"
        expected.maxDialogsPerClient = 5
        expected.spinMicroseconds = 0
        let parsed = try CommandLineParser.parse([
            "--framing", "ndjson", "--max-message-bytes=1000", "--log-level", "debug", "--log-file", "/tmp/x.log",
            "--presenter", "script:/tmp/s.json", "--state-dir", ":memory:", "--max-dialogs-per-client", "5",
            "--spin-microseconds=0",
        ])
        #expect(parsed == .serve(expected))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--spin-microseconds", "10001"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--spin-microseconds=-1"]) }
    }

    @Test func theDaemonAndItsBridge() throws {
        var options = ServerOptions()
        #expect(try CommandLineParser.parse(["--listen"]) == .listen(options, socket: nil))
        options.idleTimeoutSeconds = 300
        options.maxClients = 10
        options.maxClientsPerApp = 3
        options.maxRequestsPerClient = 8
        options.maxOutputBytesPerClient = 65536
        options.maxPresenterBytesPerApp = 1 << 20
        options.maxOpenDocumentsPerApp = 16
        options.maxDocumentBytesPerApp = 1 << 20
        #expect(try CommandLineParser.parse(["--listen=/run/w.sock", "--idle-timeout", "300", "--max-clients=10", "--max-clients-per-app=3",
                                             "--max-requests-per-client", "8", "--max-output-bytes-per-client", "65536",
                                             "--max-presenter-bytes-per-app=1048576", "--max-open-documents-per-app", "16",
                                             "--max-document-bytes-per-app=1048576"])
                == .listen(options, socket: "/run/w.sock"))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--listen", "--max-presenter-bytes-per-app=1000"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--listen", "--max-open-documents-per-app=0"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--listen", "--max-document-bytes-per-app=1000"]) }
        #expect(try CommandLineParser.parse(["--connect"]) == .connect(socket: nil, daemonArguments: []))
        // The other options are the daemon's, should the bridge start one.
        #expect(try CommandLineParser.parse(["--presenter=script:/s.json", "--connect=/run/w.sock", "--idle-timeout", "5"])
                == .connect(socket: "/run/w.sock", daemonArguments: ["--presenter", "script:/s.json", "--idle-timeout", "5"]))
        let spaced = #expect(throws: UsageError.self) { try CommandLineParser.parse(["--listen", "/run/w.sock"]) }
        #expect(spaced?.message.contains("--listen=PATH") == true)
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--listen", "--connect"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--stdio", "--listen"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--connect", "--bogus"]) }
    }

    /// The completions offer a command only as the first word; a command after an option says so.
    @Test func aCommandAfterAnOptionIsRefusedSayingItComesFirst() {
        let error = #expect(throws: UsageError.self) { try CommandLineParser.parse(["--log-level", "debug", "pick", "--multiple"]) }
        #expect(error?.message == "unknown argument pick (a command is the first word: wharf pick [OPTION]...)")
    }

    @Test func presenterNamesTheDesktopDialogOrAuto() throws {
        var expected = ServerOptions()
        for (raw, setting) in [("auto", PresenterSetting.auto), ("portal", .desktop(.portal)), ("zenity", .desktop(.zenity)),
                               ("kdialog", .desktop(.kdialog)), ("fzf", .fileManager(.fzf)), ("lf", .fileManager(.lf)),
                               ("nnn", .fileManager(.nnn)), ("ranger", .fileManager(.ranger)), ("vifm", .fileManager(.vifm)),
                               ("yazi", .fileManager(.yazi))] {
            expected.presenter = setting
            #expect(try CommandLineParser.parse(["--presenter", raw]) == .serve(expected))
        }
        #expect(ServerOptions().presenter == .auto)
    }

    @Test(arguments: [
        ["--framing", "xml"], ["--framing"], ["--max-message-bytes", "0"], ["--log-level", "loud"],
        ["--presenter", "native"], ["--max-dialogs-per-client", "-1"], ["--bogus"],
        ["types"], ["types", "conforms", "a"], ["access", "revoke"], ["access", "frobnicate"],
    ])
    func badCommandLinesAreUsageErrorsNamingTheProblem(arguments: [String]) {
        #expect(throws: UsageError.self) { try CommandLineParser.parse(arguments) }
    }

    @Test func subcommands() throws {
        #expect(try CommandLineParser.parse(["types", "identify", "--no-sniff", "a", "b"]) == .types(.identify(paths: ["a", "b"], sniff: false)))
        #expect(try CommandLineParser.parse(["types", "describe", "public.png"]) == .types(.describe(["public.png"])))
        #expect(try CommandLineParser.parse(["types", "conforms", "a", "b"]) == .types(.conforms("a", to: "b")))
        #expect(try CommandLineParser.parse(["access", "list", "--state-dir", "/s"]) == .access(.list(json: false), stateDirectory: "/s"))
        #expect(try CommandLineParser.parse(["access", "revoke", "g1"]) == .access(.revoke("g1"), stateDirectory: nil))
        #expect(try CommandLineParser.parse(["--help"]) == .help)
        #expect(try CommandLineParser.parse(["--version"]) == .version)
    }

    /// Paths are made from the bytes the arguments had (`ArgumentText`), wherever they appear.
    @Test func pathArgumentsKeepBytesThatAreNotUTF8() throws {
        let bytes: [UInt8] = Array("/tmp/caf".utf8) + [0xE9]   // Latin-1 é: not UTF-8
        let text = ArgumentText.text(bytes)
        let path = try #require(FilePath(bytes: bytes))
        #expect(try CommandLineParser.parse(["access", "list", "--state-dir", text]) == .access(.list(json: false), stateDirectory: path))
        #expect(try CommandLineParser.parse(["types", "identify", text]) == .types(.identify(paths: [path], sniff: true)))
        var expected = ServerOptions()
        expected.stateDirectory = path
        expected.logFile = path
        #expect(try CommandLineParser.parse(["--state-dir=\(text)", "--log-file", text]) == .serve(expected))
        #expect(try CommandLineParser.parse(["--listen=\(text)"]) == .listen(ServerOptions(), socket: path))
        var save = SaveCommand()
        save.file = path
        #expect(try CommandLineParser.parse(["save", text]) == .save(save))
    }
}

/// `wharf move`'s command line.
@Suite struct MoveCommandLine {
    @Test func filesAndAFolderAreRead() throws {
        var expected = MoveCommand()
        expected.files = [FilePath("/a/b.txt"), FilePath("c d.txt")]
        expected.folder = FilePath("/dst")
        #expect(try CommandLineParser.parse(["move", "/a/b.txt", "--to=/dst", "--", "c d.txt"]) == .move(expected))
    }

    /// As `wharf pick` and `wharf save`: the desktop's dialog where one is usable, else the terminal.
    @Test func autoFallsBackToTheTerminal() throws {
        guard case .move(let command) = try CommandLineParser.parse(["move", "a"]) else { Issue.record("not a move"); return }
        #expect(command.presenter == .desktopOrTerminal)
        guard case .move(let named) = try CommandLineParser.parse(["move", "a", "--presenter", "auto"]) else { Issue.record("not a move"); return }
        #expect(named.presenter == .desktopOrTerminal)
    }

    @Test func whatMeansNothingIsRefused() {
        let cases: [([String], String)] = [
            (["move"], "name at least one FILE"),
            (["move", "a", "--to", "/d", "--title", "T"], "takes no --presenter or --title"),
            (["move", "a", "--replace"], "unknown argument --replace"),
        ]
        for (arguments, message) in cases {
            let error = #expect(throws: UsageError.self) { try CommandLineParser.parse(arguments) }
            #expect(error?.message.contains(message) == true, "\(arguments): \(error?.message ?? "")")
        }
    }
}
