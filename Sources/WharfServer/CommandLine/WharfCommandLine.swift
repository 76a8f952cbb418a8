/// `wharf`'s command line: the one place its options, commands, exit statuses, files and
/// environment are written down. `wharf --help`, `wharf.1` and the bash, zsh and fish
/// completions are rendered from it; `CommandLineReferenceTests` checks that
/// `CommandLineParser` accepts every option and command listed here and knows no other.
extension CommandLineReference {
    public static let wharf = CommandLineReference(
        program: "wharf",
        tagline: "SwiftUI-style file import and export dialogs for editors, over JSON-RPC",
        synopsis: ["[--stdio] [OPTION]...", "--listen[=PATH] [OPTION]...", "--connect[=PATH] [OPTION]...", "--help | --version"],
        description: [
            "Wharf serves SwiftUI-style file import, export and move dialogs to editors and tools as a JSON-RPC 2.0 server over standard input and output, like a language server. An editor spawns `wharf`, asks for an importer, an exporter or a mover, and is told exactly once how the dialog ended: the files picked, written or moved, a failure, or a cancellation. What the human picked is all the editor may reach.",
            "With `--listen`, wharf is instead one daemon for the user's session: every app connects to its Unix socket and gets a session of its own, its identity established from the connecting process (its Flatpak app id, its Snap, else its executable), not from what it declares; one connection may present the dialogs of all the others. `--connect` bridges an editor that can only spawn a process to that daemon. systemd user units start it on demand (`wharf.socket`).",
            "The protocol is described in wharf-protocol(7).",
        ],
        options: [
            stdio, listen, connect, framing, maxMessageBytes, logLevel, logFile, presenter, stateDirectory, maxDialogsPerClient,
            maxRequestsPerClient, maxOutputBytesPerClient, maxClients, maxClientsPerApp, maxPresenterBytesPerApp, maxOpenDocumentsPerApp, maxDocumentBytesPerApp, idleTimeout,
            initializeTimeout, spinMicroseconds,
            CommandLineOption(["-h", "--help"], "Show this help and exit."),
            CommandLineOption(["--version"], "Show the version of wharf and of its protocol, and exit."),
        ],
        // Every command answers `--help` with its own help (HelpText.render(_:command:)).
        commands: [
            Subcommand(
                ["types", "identify"], options: [noSniff], operands: [Operand("FILE", .file, repeats: true)],
                "Print each file's content type, one line per file: the path (escaped as `wharf access list` escapes paths), the identifier, the MIME type, and how it was decided (`extension`, `magic`, `fallback` or `fileSystem`)."
            ),
            Subcommand(
                ["types", "describe"], operands: [Operand("IDENTIFIER", .contentType, repeats: true)],
                "Print what Wharf knows about content types: description, parents, filename extensions, MIME types."
            ),
            Subcommand(
                ["types", "conforms"], operands: [Operand("IDENTIFIER", .contentType), Operand("PARENT", .contentType)],
                "Exit with 0 if IDENTIFIER conforms to PARENT and 1 if not (2 for an unknown type)."
            ),
            Subcommand(["types", "stats"], "Print how long loading the shared MIME database took, and what it holds."),
            Subcommand(
                ["pick"], options: [pickType, multiple, directoryPicker, title, nulSeparated, dialogPresenter, stateDirectory],
                "Ask a person for files with the desktop's own dialog, or on the terminal where there is none (over ssh, say), and print the paths picked, one per line (exact bytes). Exit with 0 when files were picked, 1 when the person cancelled, 2 when no dialog could be shown or it failed (with a message saying what was tried and what to do).",
                details: "On the terminal, the keys are those of the Neovim picker: Enter opens a folder or chooses, Tab marks (with `--multiple`), `/` filters, `-` goes up, `~` home, `.` shows hidden files, `t` switches the type, `?` lists the keys, `q` or Escape cancels."
            ),
            Subcommand(
                ["save"], options: [saveName, saveType, title, dialogPresenter, stateDirectory], operands: [Operand("FILE", .file, optional: true)],
                "Ask a person where to save FILE (standard input when it is missing or `-`) with the desktop's own dialog, or on the terminal where there is none, write it there atomically, and print its path. Exit with 0 when it was written, 1 when the person cancelled, 2 when no dialog could be shown or writing failed (with a message)."
            ),
            Subcommand(
                ["move"], options: [moveTo, title, nulSeparated, presenter, stateDirectory],
                operands: [Operand("FILE", .file, repeats: true)],
                "Move the FILEs into a folder a person chooses with the desktop's own folder dialog, or on the terminal where there is none (or into the folder `--to` names, asking nobody), all of them or none, and print where each now is, one per line (exact bytes), in the order given. Exit with 0 when they were moved, 1 when the person cancelled, 2 when no dialog could be shown or the move failed (with a message; every file is then where it was).",
                details: "A name already taken in the folder: the terminal's dialogs ask whether to replace it or keep both; the desktop's folder dialogs cannot ask, and `--to` does not guess, so there the move does nothing and exits with 2 naming it. Within one file system a move is a rename; across file systems each file is copied, synced and renamed into place before the original is removed. Bookmarks apps hold of the files follow them."
            ),
            Subcommand(
                ["portal"], options: [portalPresenter, terminal, stateDirectory, logLevel, portalCheck, runDialog, answer],
                "Serve xdg-desktop-portal's file chooser backend (`org.freedesktop.impl.portal.FileChooser`, as `org.freedesktop.impl.portal.desktop.wharf` on the session bus), so that apps asking the portal for files (Flatpak apps, Firefox and Chromium with portals on, GTK with `GTK_USE_PORTAL=1`, Qt with `QT_QPA_PLATFORMTHEME=xdgdesktopportal`) get a Wharf dialog: filters enforced (an `OpenFile` pick and the name given to a `SaveFile` must match the filter in force, or the dialog says why and stays open), a save's destination checked and never written (the app writes it), several dialogs at once. D-Bus activation and the systemd user unit `wharf-portal.service` start it; the portal uses it where `wharf.portal` is chosen (see README.md). Runs until SIGTERM or SIGINT, ending its open dialogs first.",
                details: "With `--check`, print whether the running portal would route FileChooser calls to Wharf and, if not, why and what to change; exit with 0 when it would, 1 when not."
            ),
            Subcommand(
                ["access", "list"], options: [stateDirectory, json],
                "List every grant and bookmark every app holds, with the ID to revoke it by: one tab-separated row each. App names and paths are printed escaped, so that no name can forge a row or send the terminal a command: `\\\\` for a backslash, `\\t`, `\\n` and `\\r`, `\\xHH` for any other control character and for each byte that is not UTF-8, `\\u{202E}` for the characters that reorder text. Only reads the state store, and creates none where there is none."
            ),
            Subcommand(
                ["access", "revoke"], options: [stateDirectory], operands: [Operand("ID", .text(example: "g1"))],
                "Remove one grant or bookmark, by the ID `wharf access list` shows."
            ),
        ].map { command in
            var command = command
            command.options.append(commandHelp)
            return command
        },
        exitStatuses: [
            Entry("0", "The client sent `shutdown` and then `exit`, or its input ended or SIGTERM or SIGINT arrived after `shutdown`; or a command succeeded; or the daemon (`--listen`) ended on SIGTERM or SIGINT, or after `--idle-timeout`. With `--connect`, the status of the session the daemon served."),
            Entry("1", "The input ended, SIGTERM or SIGINT arrived, or the process named in `initialize` died, without `shutdown` first; or the input ended inside a message (LSP framing, even after `shutdown`); or the server's state directory could not be used; or `types` or `access` failed; or `pick`, `save` or `move` was cancelled by the person; or `--connect` found no daemon and could not start one; or `portal` found no session bus or another owner of its name, or `portal --check` found that the portal would not use Wharf."),
            Entry("2", "The command line could not be understood (including a `--presenter` script that cannot be read, or a `--log-file` that cannot be opened), or the daemon could not take its socket; or `pick`, `save` or `move` could show no dialog (a state directory that cannot be used, no presenter), or it failed (a move then moved nothing)."),
        ],
        environment: [
            Entry("XDG_STATE_HOME", "Where the state directory is when `--state-dir` is not given: `$XDG_STATE_HOME/wharf`. Unset, empty or relative, it is `~/.local/state`."),
            Entry("XDG_DATA_HOME, XDG_DATA_DIRS", "Where the shared MIME database is looked for: the `mime` directory under each (by default `~/.local/share/mime`, `/usr/local/share/mime` and `/usr/share/mime`)."),
            Entry("HOME", "The home directory, for the defaults above (and the terminal picker's `~`)."),
            Entry("TERM, TERMINFO, TERMINFO_DIRS", "The terminal the terminal presenter draws on, and where its terminfo entry is looked for (`$TERMINFO`, `~/.terminfo`, `$TERMINFO_DIRS`, `/etc/terminfo`, `/lib/terminfo`, `/usr/share/terminfo`). Unset or `dumb`, no dialog is drawn on the terminal."),
            Entry("XDG_RUNTIME_DIR", "Where the daemon's socket is when `--listen` or `--connect` names none: `$XDG_RUNTIME_DIR/wharf/wharf.sock`."),
            Entry("LISTEN_PID, LISTEN_FDS", "Set by systemd's socket activation (sd_listen_fds(3)): when they name this process and one socket, `--listen` serves the socket passed as descriptor 3 instead of binding one."),
        ],
        files: [
            Entry("~/.local/state/wharf/state.sqlite3", "Grants, bookmarks and remembered folders (under `$XDG_STATE_HOME` when set), private to the user (mode 0600). Several wharf processes share it."),
            Entry("/usr/share/mime/", "The freedesktop shared MIME database (`globs2`, `magic`, `subclasses`, `aliases`), read for content types Wharf does not declare itself."),
            Entry("$XDG_RUNTIME_DIR/wharf/wharf.sock", "The daemon's socket (mode 0600, in a directory of mode 0700), with `wharf.sock.lock`, locked while a daemon serves it, and `wharf.log`, the log of a daemon `--connect` started."),
            Entry("wharf.socket, wharf.service", "The systemd user units (in `lib/systemd/user`): `systemctl --user enable --now wharf.socket` starts the daemon on the first connection; it exits after a few idle minutes."),
        ],
        notes: [
            Entry("Standard streams", "Standard output carries only protocol messages. Logs go to standard error, or to the file `--log-file` names."),
            Entry("The daemon", "`wharf --listen` serves each connection as `wharf` serves its standard I/O: the same framing, detected per connection, and the same lifecycle (`exit` ends the connection, not the daemon). A peer of another user is refused. The app that owns a client's grants and bookmarks is established from the peer process: its Flatpak app id, else its Snap, else its executable, with `clientInfo.name` a name within it; a `--connect` bridge stands for the program that started it. A connection that says `\"role\": \"presenter\"` in `initialize` shows the dialogs of every client that does not show its own; it must not be sandboxed, and only one presents at a time; when it goes away, the dialogs it showed fail with `presenterFailed`. Without one, dialogs go to the presenter `--presenter` chooses. On SIGTERM every open dialog is cancelled (`disconnected`), every connection gets what it is owed, and the daemon exits 0. wharf-protocol(7) describes it all."),
            Entry("Presenters", "A dialog is shown to a human by the client itself, when it says `capabilities.presentsDialogs` in `initialize`; otherwise by the desktop's own file dialog (`--presenter auto`: the portal, else zenity, else kdialog, whichever works; a portal that does not answer within a second counts as not working), drawn on the controlling terminal (`--presenter terminal`, never unless named), by a terminal file manager named with `--presenter fzf`, `lf`, `nnn`, `ranger`, `vifm` or `yazi` (only when named: `auto` never draws on a terminal), or answered by a script given with `--presenter script:FILE`. `wharf pick` and `wharf save` use the desktop's dialog when one is usable, else the terminal. On the terminal, wharf uses the alternate screen and gives the terminal back exactly as it found it however the dialog ends (a choice, a cancel, the client's `cancel` or timeout, a disconnect, SIGTERM, SIGHUP, a crash); `TERM` must name a terminal with a terminfo entry (not `dumb`). `initialize` tells the client which one it gets. When none can, presenting a dialog fails with `noPresenter`, whose message says why each could not."),
        ],
        seeAlso: ["wharf-protocol(7)", "shared-mime-info(5)"]
    )

    // MARK: Options shared by several forms, and the long ones

    static let stdio = CommandLineOption(["--stdio"], "Serve one client over standard input and output (the default).")

    static let listen = CommandLineOption(
        ["--listen"], OptionValue("PATH", .file, optional: true),
        "Run as the daemon: serve every client of this user on the Unix socket PATH (by default `$XDG_RUNTIME_DIR/wharf/wharf.sock`), or on the socket systemd passes (`LISTEN_FDS`).",
        details: "A socket left by a daemon that died is replaced; one a live daemon serves is not, and this one exits with status 2. Stop the daemon with SIGTERM: it cancels every open dialog, gives every connection what it is owed, and exits 0."
    )

    static let connect = CommandLineOption(
        ["--connect"], OptionValue("PATH", .file, optional: true),
        "Bridge standard input and output to the daemon on PATH (by default `$XDG_RUNTIME_DIR/wharf/wharf.sock`), starting one when none listens, and exit with the status of the session.",
        details: "The other options are for the daemon it starts, if it starts one (with `--idle-timeout 300` unless given); its log is `wharf.log` beside the socket. The daemon takes the program that started the bridge for the client."
    )

    static let maxRequestsPerClient = CommandLineOption(
        ["--max-requests-per-client"], OptionValue("N", .integer(1...1_000_000), default: "256"),
        "How many requests of one connection may wait for their answers; beyond that its input is not read until some are answered."
    )

    static let maxOutputBytesPerClient = CommandLineOption(
        ["--max-output-bytes-per-client"], OptionValue("N", .integer(65536...Int(Int32.max)), default: "16777216"),
        "How many bytes may wait to be written to one connection; beyond that its input is not read until it reads its output (one larger message still goes, alone; a batch whose answers would pass it has the rest answered -32600)."
    )

    static let maxClients = CommandLineOption(
        ["--max-clients"], OptionValue("N", .integer(1...1_000_000), default: "1024"),
        "With `--listen`: how many connections the daemon serves at once; more are answered `tooManyClients` (-32050, naming the limit) and closed as they come."
    )

    static let maxClientsPerApp = CommandLineOption(
        ["--max-clients-per-app"], OptionValue("N", .integer(1...1_000_000), default: "64"),
        "With `--listen`: how many of those connections one app (the connecting process's: a sandbox's bridges count as its app, the bridges of unsandboxed programs together as wharf's) may have at once, counted from the moment they arrive; more are answered `tooManyClients` (-32050, naming the limit) and closed as they come."
    )

    static let maxPresenterBytesPerApp = CommandLineOption(
        ["--max-presenter-bytes-per-app"], OptionValue("N", .integer(65536...Int(Int32.max)), default: "4194304"),
        "With `--listen`: how many bytes of one app's dialogs (all its connections together) may wait to be written to the presenter connection; a dialog that would take the app past that is refused with -32019 (presenterBacklog), and the app may try again once the presenter has read. One dialog larger than N still goes when none of the app's is waiting."
    )

    static let maxOpenDocumentsPerApp = CommandLineOption(
        ["--max-open-documents-per-app"], OptionValue("N", .integer(1...1_000_000), default: "1024"),
        "With `--listen`: how many `path` and `fd` documents one app's open exporters (all its connections together) may hold open; a document past that is refused with -32012 (tooManyDialogs) until one of the app's exporters ends. All apps together may hold half the daemon's descriptor limit."
    )

    static let maxDocumentBytesPerApp = CommandLineOption(
        ["--max-document-bytes-per-app"], OptionValue("N", .integer(65536...(1 << 40)), default: "268435456"),
        "With `--listen`: how many bytes of `text` and `base64` documents one app's open exporters (all its connections together) may hold in memory; an exporter that would take the app past that is refused with -32012 (tooManyDialogs) until one of the app's exporters ends. One exporter larger than N still goes when the app holds no others. All apps together may hold four times N."
    )

    static let idleTimeout = CommandLineOption(
        ["--idle-timeout"], OptionValue("SECONDS", .integer(0...31_536_000), default: "0"),
        "With `--listen`: exit after SECONDS without any connection (0: never)."
    )

    static let initializeTimeout = CommandLineOption(
        ["--initialize-timeout"], OptionValue("SECONDS", .integer(0...86_400), default: "30"),
        "With `--listen`: close a connection that has not been answered `initialize` SECONDS after it arrived, silent or not (0: never)."
    )

    static let spinMicroseconds = CommandLineOption(
        ["--spin-microseconds"], OptionValue("N", .integer(0...10_000), default: "100, or 0 on one processor"),
        "How long a thread that has just read a message or finished a piece of work looks for the next before it sleeps (0: never). Being woken costs a thread tens of microseconds where idle processors halt, as in most virtual machines; a client asking one thing at a time has its next request read without that wait. Only one read loop and one worker look at a time, and only after a message: an idle wharf spends nothing."
    )

    static let framing = CommandLineOption(
        ["--framing"], OptionValue("MODE", .choice([
            ValueChoice("auto", "NDJSON when the first non-blank byte is `{` or `[`, LSP framing otherwise"),
            ValueChoice("lsp", "`Content-Length` headers, as in the Language Server Protocol"),
            ValueChoice("ndjson", "one JSON text per line"),
        ]), default: "auto"),
        "How messages are framed on the way in. Replies use the client's framing."
    )

    static let maxMessageBytes = CommandLineOption(
        ["--max-message-bytes"], OptionValue("N", .integer(1...Int.max), default: "67108864"),
        "Discard messages longer than N bytes unread, and answer them with -32600."
    )

    static let logLevel = CommandLineOption(
        ["--log-level"], OptionValue("LEVEL", .choice([
            ValueChoice("error"), ValueChoice("warning"), ValueChoice("info"), ValueChoice("debug"),
        ]), default: "warning"),
        "How much to log."
    )

    static let logFile = CommandLineOption(
        ["--log-file"], OptionValue("PATH", .file),
        "Append logs to PATH instead of standard error."
    )

    static let presenter = CommandLineOption(
        ["--presenter"], OptionValue("KIND", .choice([
            ValueChoice("auto", "the desktop's own file dialog: xdg-desktop-portal, else zenity, else kdialog, the first that works here"),
            ValueChoice("portal", "only xdg-desktop-portal's FileChooser, over the D-Bus session bus"),
            ValueChoice("zenity", "only zenity"),
            ValueChoice("kdialog", "only kdialog"),
            ValueChoice("terminal", "draw dialogs on the controlling terminal (`/dev/tty`), never on the protocol's streams; only when named, since an editor that started wharf owns its terminal"),
        ] + fileManagerChoices + [
            ValueChoice("script", fileArgument: "FILE", "answer dialogs from FILE, a JSON array of steps, for demos, tests and harnesses"),
        ]), default: "auto"),
        "Who shows dialogs to clients that do not draw their own.",
        details: "A terminal file manager runs on the controlling terminal (`/dev/tty`, never the JSON-RPC streams) in the dialog's folder; each pick is checked as `dialog/choose` checks it, and a refused one is explained there and the tool opens again; quitting it without a choice cancels. The dialog's title (else what it does) and message are shown where the tool has a place for them, with the keys it needs: fzf's header, lf's top line, vifm's status line, a notice in ranger's status bar for its first seconds; nnn and yazi have none. To save, the tool chooses the folder and Wharf asks for the name on the terminal. A tool that is missing or fails fails the dialog, quoting it. The terminal is given back as it was found. A script's steps are `{\"choose\": [PATH...]}` (for a mover, one folder, with `\"conflictResolution\"` beside it to answer for taken names), `{\"save\": {\"path\": ..., \"contentType\": ..., \"overwrite\": ...}}`, `{\"dismiss\": true}`, `{\"delayMs\": N}`, `{\"expect\": {...}}`, `{\"selectFilter\": NAME}` (one of the app's named filters) and `{\"setChoice\": {\"id\": ID, \"value\": VALUE}}` (one of its choices); wharf-protocol(7) describes them."
    )

    /// The terminal file managers `--presenter` can name, for the server and for `pick` and `save`.
    static let fileManagerChoices = [
        ValueChoice("fzf", "fzf on the controlling terminal, fed the entries the dialog allows, one folder at a time"),
        ValueChoice("lf", "lf on the controlling terminal, in its chooser mode (-selection-path)"),
        ValueChoice("nnn", "nnn on the controlling terminal, in its picker mode (-p)"),
        ValueChoice("ranger", "ranger on the controlling terminal (--choosefiles, --choosedir)"),
        ValueChoice("vifm", "vifm on the controlling terminal (--choose-files, --choose-dir)"),
        ValueChoice("yazi", "yazi on the controlling terminal (--chooser-file, --cwd-file), where it is installed"),
    ]

    static let commandHelp = CommandLineOption(["-h", "--help"], "Show this command's help and exit.")

    /// `--presenter` of `pick` and `save`, whose `auto` falls back to the terminal.
    static let dialogPresenter = CommandLineOption(
        ["--presenter"], OptionValue("KIND", .choice([
            ValueChoice("auto", "the desktop's own file dialog when one is usable (xdg-desktop-portal, zenity, kdialog), else the terminal"),
            ValueChoice("portal", "only xdg-desktop-portal's FileChooser"),
            ValueChoice("zenity", "only zenity"),
            ValueChoice("kdialog", "only kdialog"),
            ValueChoice("terminal", "only the terminal: the dialog is drawn on `/dev/tty`, so standard input and output stay free for pipes"),
        ] + fileManagerChoices + [
            ValueChoice("script", fileArgument: "FILE", "answer from FILE, a JSON array of steps"),
        ]), default: "auto"),
        "Who shows the dialog."
    )

    static let stateDirectory = CommandLineOption(
        ["--state-dir"], OptionValue("DIR", .directory),
        "Where grants, bookmarks and remembered folders live (by default `$XDG_STATE_HOME/wharf`, else `~/.local/state/wharf`). `:memory:` keeps them in memory, for this process only."
    )

    static let maxDialogsPerClient = CommandLineOption(
        ["--max-dialogs-per-client"], OptionValue("N", .integer(1...100_000), default: "64"),
        "How many dialogs one client may have open at once."
    )

    static let json = CommandLineOption(
        ["--json"],
        "Print one JSON document instead of the table: `{\"entries\": [...]}`, each with `id`, `kind`, `app`, `url` (the path's exact bytes, percent-encoded), `path` (for reading), `readOnly`, `isDirectory`, `activeLeases`, `created` and, for a grant, `holder`."
    )

    static let noSniff = CommandLineOption(["--no-sniff"], "Decide by the name alone, without reading the file's first bytes.")

    // MARK: `portal`

    static let portalPresenter = CommandLineOption(
        ["--presenter"], OptionValue("KIND", .choice([
            ValueChoice("auto", "the presenter connection of the Wharf daemon (wharf --listen), when one is registered; else the terminal picker in a terminal window (where this wharf has one), else zenity, else kdialog, the first that works here (never the portal, which would ask wharf portal again)"),
            ValueChoice("terminal", "the terminal picker, in a new window of the terminal `--terminal` names"),
            ValueChoice("zenity", "only zenity"),
            ValueChoice("kdialog", "only kdialog"),
            ValueChoice("script", fileArgument: "FILE", "answer every call from FILE, a JSON array of steps (each call plays it from its first step), for tests"),
        ]), default: "auto"),
        "Who draws the dialogs."
    )
    static let terminal = CommandLineOption(
        ["--terminal"], OptionValue("PROGRAM", .text(example: "xterm")),
        "The terminal emulator a terminal presenter's window opens in (by default `$TERMINAL`, then foot, kitty, alacritty, xterm: the first installed). The window is made transient for the app's X11 window (`parent_window`) where the terminal names its own in `$WINDOWID`, as xterm does."
    )
    static let runDialog = CommandLineOption(
        ["--run-dialog"], OptionValue("REQUEST", .text(example: "{}")),
        "What `wharf portal` runs in a terminal window: one dialog (REQUEST, JSON), whose ending goes to `--answer`. Not for people."
    )
    static let answer = CommandLineOption(
        ["--answer"], OptionValue("FILE", .file),
        "With `--run-dialog`: the file the dialog's ending is written to (created; it must not exist)."
    )
    static let portalCheck = CommandLineOption(
        ["--check"], "Say whether the running portal would route FileChooser calls to Wharf, and if not, why and what to change."
    )

    // MARK: `pick`, `save` and `move`

    static let pickType = CommandLineOption(
        ["--type"], OptionValue("IDENTIFIER", .contentType),
        "A content type the person may pick (repeat for several); any file when none is given."
    )
    static let multiple = CommandLineOption(["--multiple"], "Let the person pick more than one.")
    static let directoryPicker = CommandLineOption(["--directory"], "Pick folders instead of files.")
    static let title = CommandLineOption(["--title"], OptionValue("TITLE", .text(example: "Open a report")), "The dialog's title.")
    static let nulSeparated = CommandLineOption(["-0"], "Print the paths separated by NUL bytes instead of newlines (for `xargs -0`).")
    static let saveName = CommandLineOption(
        ["--name"], OptionValue("NAME", .text(example: "report.txt")),
        "The file name to suggest (by default FILE's own name, or `Untitled` for standard input)."
    )
    static let saveType = CommandLineOption(
        ["--type"], OptionValue("IDENTIFIER", .contentType),
        "The content type the file is saved as (by default, the one NAME's extension says)."
    )
    static let moveTo = CommandLineOption(
        ["--to"], OptionValue("DIR", .directory),
        "Move into DIR without showing a dialog: naming it is the choice."
    )

}
