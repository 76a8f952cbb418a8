// swift-tools-version:6.0
// Wharf: SwiftUI's fileImporter/fileExporter semantics as a JSON-RPC 2.0 server over stdio.
//
// Layers, each knowing only those below it (Tests/lint/imports.sh checks every import against
// the dependencies declared here):
//   WharfSystem: the one door to the C library (files, processes, signals, time)
//   CJansson → WharfJSON → WharfJSONRPC (transport), WharfProtocol (the protocol's messages)
//   WharfSystem → WharfContentTypes, WharfFileWriting, WharfAccess (CSQLite) → WharfDialogs
//   WharfSystem → WharfDBus (CSystemBus: sd-bus, loaded on first use) → WharfDesktopDialogs
//   WharfSystem → WharfTerminal (terminfo, keys, widths, frames: what draws on a terminal)
//   all of the above → WharfServer (session host, method table, presenters) → wharf
// Domain modules (content types, file writing, access, dialogs, D-Bus, desktop dialogs) never
// see JSON; WharfProtocol never sees the domain.
import PackageDescription

/// The C targets' debug information in DWARF 4: clang's default, DWARF 5, is more than Debian
/// 12's valgrind reads, and it then gives up on the whole binary (`make bench` runs the soak
/// and callgrind under it). Swift's own units are DWARF 4 already.
let debugInfoValgrindReads: [CSetting] = [.unsafeFlags(["-gdwarf-4"])]

let package = Package(
    name: "Wharf",
    products: [
        .executable(name: "wharf", targets: ["wharf"]),
    ],
    targets: [
        // MARK: System libraries
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The C library's Linux and GNU calls Swift's Glibc module leaves out (pipe2, pidfd_open,
        // closing inherited descriptors in a spawned child); only WharfSystem uses it.
        .systemLibrary(name: "CProcessSpawn"),
        // What a terminal needs from C that Swift cannot do safely: giving it back from a signal
        // handler, its window size (a variadic ioctl), wcwidth in a UTF-8 locale of the thread's
        // own. Only WharfSystem uses it.
        .target(name: "CTerminal", cSettings: debugInfoValgrindReads),

        // MARK: Foundation layers
        .target(name: "WharfSystem", dependencies: ["CProcessSpawn", "CTerminal"]),
        .testTarget(name: "WharfSystemTests", dependencies: ["WharfSystem", "WharfTestSupport"]),
        .target(name: "WharfJSON", dependencies: ["CJansson"]),
        .testTarget(name: "WharfJSONTests", dependencies: ["WharfJSON"]),
        .target(name: "WharfJSONRPC", dependencies: ["WharfJSON", "WharfSystem"]),
        // One type per message of the protocol: its params, its result, reading and writing.
        .target(name: "WharfProtocol", dependencies: ["WharfJSON"]),
        .testTarget(
            name: "WharfJSONRPCTests", dependencies: ["WharfJSONRPC", "WharfJSON", "WharfSystem", "WharfServerTestSupport", "WharfTestSupport"]),

        // MARK: Domain modules (no JSON)
        .target(name: "WharfContentTypes", dependencies: ["WharfSystem"]),
        .testTarget(name: "WharfContentTypesTests", dependencies: ["WharfContentTypes", "WharfSystem", "WharfTestSupport"]),
        .target(name: "WharfFileWriting", dependencies: ["WharfSystem"]),
        .testTarget(name: "WharfFileWritingTests", dependencies: ["WharfFileWriting", "WharfSystem", "WharfTestSupport"]),
        .target(name: "WharfAccess", dependencies: ["CSQLite", "WharfSystem"]),
        .testTarget(name: "WharfAccessTests", dependencies: ["WharfAccess", "WharfSystem", "WharfTestSupport"]),
        .target(name: "WharfDialogs", dependencies: ["WharfSystem", "WharfFileWriting"]),
        .testTarget(
            name: "WharfDialogsTests", dependencies: ["WharfDialogs", "WharfFileWriting", "WharfSystem", "WharfTestSupport"]),

        // MARK: Desktop dialogs: xdg-desktop-portal's FileChooser over D-Bus, zenity, kdialog
        // CSystemBus is sd-bus (libsystemd), loaded with dlopen on first use, not linked:
        // libsystemd and the libraries it pulls in would cost every process start-up time and
        // memory, though only one that connects to a bus needs them; it builds against
        // libsystemd-dev's headers. WharfDBus is the one module that speaks D-Bus (see its
        // WharfDBus.swift for why sd-bus); WharfDesktopDialogs turns a dialog request into a
        // portal call or a zenity/kdialog child. Both are domain modules: no JSON.
        // dlopen is in libc since glibc 2.34; -ldl is for older ones (and adds nothing here).
        .target(name: "CSystemBus", cSettings: debugInfoValgrindReads, linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "WharfDBus", dependencies: ["CSystemBus", "WharfSystem"]),
        .testTarget(
            name: "WharfDBusTests",
            dependencies: ["WharfDBus", "WharfSystem", "WharfDesktopTestSupport", "WharfServerTestSupport", "WharfTestSupport", "WharfJSON"]),
        .target(name: "WharfDesktopDialogs", dependencies: ["WharfDBus", "WharfSystem"]),
        .testTarget(
            name: "WharfDesktopDialogsTests",
            dependencies: ["WharfDesktopDialogs", "WharfDBus", "WharfSystem", "WharfDesktopTestSupport", "WharfTestSupport"]),
        // The terminal: terminfo read from its compiled database (only when a dialog is drawn
        // there), keys decoded, display widths, names escaped, frames composed.
        .target(name: "WharfTerminal", dependencies: ["WharfSystem"]),
        .testTarget(name: "WharfTerminalTests", dependencies: ["WharfTerminal", "WharfSystem", "WharfTestSupport"]),
        // Terminal file managers people already use (fzf, lf, nnn, ranger, vifm, yazi) run on the
        // controlling terminal in their chooser modes, what they chose read back as bytes; the
        // server's FileManagerPresenter checks each pick as dialog/choose does.
        .target(name: "WharfFileManagers", dependencies: ["WharfSystem"]),
        .testTarget(name: "WharfFileManagersTests", dependencies: ["WharfFileManagers", "WharfSystem", "WharfTestSupport"]),

        // MARK: Server and executable
        .target(
            name: "WharfServer",
            dependencies: [
                "WharfJSON", "WharfJSONRPC", "WharfProtocol", "WharfSystem",
                "WharfContentTypes", "WharfFileWriting", "WharfAccess", "WharfDialogs", "WharfDBus", "WharfDesktopDialogs", "WharfTerminal",
                "WharfFileManagers",
            ]
        ),
        .testTarget(
            name: "WharfServerTests",
            dependencies: ["WharfServer", "WharfContentTypes", "WharfDBus", "WharfDesktopDialogs", "WharfDialogs", "WharfDocs", "WharfJSON", "WharfJSONRPC", "WharfProtocol", "WharfSystem", "WharfServerTestSupport", "WharfTestSupport"]),
        .executableTarget(name: "wharf", dependencies: ["WharfServer", "WharfSystem"]),
        // What `make install` ships beside the binary (the manual pages, the shell completions),
        // rendered from the command-line reference `--help` comes from; see packaging/README.md.
        .target(name: "WharfDocs", dependencies: ["WharfServer", "WharfContentTypes"]),
        .executableTarget(name: "wharf-docs", dependencies: ["WharfDocs", "WharfServer"]),

        // MARK: Test support and end-to-end tests over the real binary
        // Scratch directories, child processes and file helpers for every test target.
        .target(name: "WharfTestSupport", dependencies: ["WharfSystem"]),
        // Clients over the wire: in-process over pipes and the real binary as a child, with
        // every server message checked against the schema; the conformance transcripts.
        .target(
            name: "WharfServerTestSupport",
            dependencies: ["WharfTestSupport", "WharfJSON", "WharfJSONRPC", "WharfSystem", "WharfServer"]
        ),
        .testTarget(
            name: "WharfEndToEndTests",
            dependencies: [
                "WharfServerTestSupport", "WharfTestSupport", "WharfJSON", "WharfJSONRPC", "WharfProtocol", "WharfSystem", "WharfServer",
            ]
        ),

        // The daemon over its real socket: `wharf --listen` spawned, clients connecting to it
        // (and through `wharf --connect`), the presenter connection, identities, descriptors.
        .testTarget(
            name: "WharfDaemonTests",
            dependencies: [
                "WharfServerTestSupport", "WharfTestSupport", "WharfJSON", "WharfJSONRPC", "WharfProtocol", "WharfSystem", "WharfServer",
            ]
        ),

        // The desktop rig's support: a private session bus, a fake portal, a virtual display.
        .target(
            name: "WharfDesktopTestSupport", dependencies: ["WharfDBus", "WharfSystem", "WharfTestSupport"],
            path: "Tests/desktop/Support"),
        // The `wharf` binary with the real desktop dialogs: presenter choice, fallback, pick and save.
        .testTarget(
            name: "WharfDesktopServerTests",
            dependencies: ["WharfDesktopTestSupport", "WharfServerTestSupport", "WharfTestSupport", "WharfJSON", "WharfSystem"]),
        // Run by Tests/desktop/rig.sh inside the rig (and by the screenshots); measures and drives.
        .executableTarget(
            name: "wharf-desktop-rig",
            dependencies: [
                "WharfDesktopDialogs", "WharfDBus", "WharfSystem", "WharfDesktopTestSupport", "WharfServerTestSupport",
                "WharfTestSupport", "WharfJSON", "CSystemBus",
            ],
            path: "Tests/desktop/RigTool"),

        // MARK: Test tools
        .executableTarget(name: "wharf-write-probe", dependencies: ["WharfFileWriting", "WharfSystem", "WharfTestSupport"], path: "Tests/Tools/WriteProbe"),
        .executableTarget(name: "wharf-move-probe", dependencies: ["WharfFileWriting", "WharfSystem", "WharfTestSupport"], path: "Tests/Tools/MoveProbe"),
        .executableTarget(name: "wharf-access-stress", dependencies: ["WharfAccess", "WharfSystem"], path: "Tests/Tools/AccessStress"),
        // Holds an SQLite database's lock from another process, for DatabaseLock.
        .executableTarget(name: "wharf-sqlite-lock", dependencies: ["CSQLite", "WharfTestSupport"], path: "Tests/Tools/SQLiteLock"),

        // MARK: Fuzzing
        // `make fuzz` builds this with libFuzzer (`--sanitize=fuzzer`, `-D WHARF_FUZZING`); a plain
        // build makes it a replayer of saved inputs. See bench/fuzz/README.md.
        .executableTarget(name: "WharfFuzz", dependencies: ["WharfServer", "WharfJSONRPC", "WharfJSON", "WharfSystem"]),
    ],
    swiftLanguageModes: [.v6]
)
