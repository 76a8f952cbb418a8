import WharfSystem

/// The terminal emulator a portal dialog opens in, when the terminal picker draws it: the
/// person's `--terminal`, else `$TERMINAL`, else the first installed of foot, kitty, alacritty
/// and xterm. Each is told, in its own words, to run one command (the dialog) in a new window
/// with a title; the window closes when the dialog ends.
struct PortalTerminal: Sendable, Equatable {
    enum Kind: String, Sendable {
        case foot, kitty, alacritty, xterm
        /// Another program: given `-e COMMAND…`, which most terminals take (and `$TERMINAL`
        /// names one by convention).
        case other
    }

    /// The program's path.
    var program: [UInt8]
    var kind: Kind

    static let preferred: [Kind] = [.foot, .kitty, .alacritty, .xterm]

    /// The terminal to use, or why there is none.
    static func find(explicit: String?, environment: [String: String]) -> Result<PortalTerminal, PortalTerminalProblem> {
        let display = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard display else {
            return .failure(PortalTerminalProblem(message: "a terminal window needs a graphical session, but neither DISPLAY nor WAYLAND_DISPLAY is set"))
        }
        if let named = explicit ?? environment["TERMINAL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let path = locate(named, environment: environment) else {
                let source = explicit != nil ? "--terminal" : "$TERMINAL"
                return .failure(PortalTerminalProblem(message: "\(source) names \(named), which is not an executable on PATH"))
            }
            let base = String(decoding: path.split(separator: UInt8(ascii: "/")).last ?? [], as: UTF8.self)
            return .success(PortalTerminal(program: path, kind: Kind(rawValue: base) ?? .other))
        }
        for kind in preferred {
            if let path = locate(kind.rawValue, environment: environment) { return .success(PortalTerminal(program: path, kind: kind)) }
        }
        return .failure(PortalTerminalProblem(message: "no terminal emulator is installed (foot, kitty, alacritty or xterm; or set $TERMINAL)"))
    }

    /// `name` as a path (one with a slash) or looked up on PATH; nil unless it is executable.
    static func locate(_ name: String, environment: [String: String]) -> [UInt8]? {
        if name.utf8.contains(UInt8(ascii: "/")) {
            return FilePath(name).flatMap { $0.isExecutableFile ? $0.bytes : nil }
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in Array(path.utf8).split(separator: UInt8(ascii: ":")) where directory.first == UInt8(ascii: "/") {
            if let candidate = FilePath(bytes: directory).map({ $0.appending(name) }), candidate.isExecutableFile {
                return candidate.bytes
            }
        }
        return nil
    }

    /// The terminal's arguments to run `command` (program first) in a new window titled `title`.
    func arguments(title: String, command: [String]) -> [String] {
        switch kind {
        case .foot: return ["--title", title, "--"] + command
        case .kitty: return ["--title", title, "--"] + command
        case .alacritty: return ["--title", title, "-e"] + command
        case .xterm: return ["-T", title, "-e"] + command
        case .other: return ["-e"] + command
        }
    }
}

/// Why no terminal window can be opened.
struct PortalTerminalProblem: Error, Sendable, Equatable {
    var message: String
}
