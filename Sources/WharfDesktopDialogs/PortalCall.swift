import WharfDBus

/// The FileChooser method call for a request: which method, its title, and its options.
///
/// - `open` → `OpenFile` with `multiple` and `directory` (the portal's version 3);
/// - `save` → `SaveFile` with `current_name` and, for a file saved again, `current_file`;
/// - `saveFiles` → `SaveFiles` with `files`;
/// - all: `handle_token`, `modal`, `accept_label`, `current_folder` (NUL-terminated bytes),
///   and (OpenFile, SaveFile) `filters` with case-folded globs and MIME types plus
///   `current_filter`. The message goes into the title (``DesktopDialogRequest/displayTitle``).
public struct PortalCall: Sendable, Equatable {
    public var method: String
    public var parentWindow: String
    public var title: String
    public var options: [(String, BusValue)]

    public static func == (a: PortalCall, b: PortalCall) -> Bool {
        a.method == b.method && a.parentWindow == b.parentWindow && a.title == b.title
            && a.options.map(\.0) == b.options.map(\.0) && a.options.map(\.1) == b.options.map(\.1)
    }

    public init(request: DesktopDialogRequest, token: String) {
        parentWindow = request.parentWindow
        title = request.displayTitle
        var options: [(String, BusValue)] = [("handle_token", .string(token)), ("modal", .boolean(request.modal))]
        if let label = request.acceptLabel, !label.isEmpty { options.append(("accept_label", .string(label))) }
        var offersFilters = true
        switch request.kind {
        case .open(let multiple, let directory):
            method = "OpenFile"
            options.append(("multiple", .boolean(multiple)))
            if directory {
                options.append(("directory", .boolean(true)))
                offersFilters = false
            }
        case .save(let currentName, let currentFile):
            method = "SaveFile"
            // current_name is a string; a name that is not UTF-8 is shown as well as it can be
            // (the human may keep or retype it; the path that comes back is exact bytes).
            options.append(("current_name", .string(String(decoding: currentName, as: UTF8.self))))
            if let currentFile { options.append(("current_file", .bytes(Self.terminated(currentFile)))) }
        case .saveFiles(let files):
            method = "SaveFiles"
            options.append(("files", .array(element: "ay", files.map { .bytes(Self.terminated($0)) })))
            offersFilters = false
        }
        if let folder = request.currentFolder { options.append(("current_folder", .bytes(Self.terminated(folder)))) }
        if offersFilters && !request.filters.isEmpty {
            let filters = request.filters.map(Self.filter)
            options.append(("filters", .array(element: "(sa(us))", filters)))
            if let current = request.validCurrentFilter { options.append(("current_filter", filters[current])) }
        }
        self.options = options
    }

    /// The call's body: `(s parent_window, s title, a{sv} options)`.
    public var body: [BusValue] { [.string(parentWindow), .string(title), .vardict(options)] }

    /// `(sa(us))`: the name, then `(0, glob)` for each glob (case-folded) and `(1, type)` for
    /// each MIME type.
    static func filter(_ filter: DesktopDialogFilter) -> BusValue {
        let patterns: [BusValue] = filter.patterns.map { pattern in
            switch pattern {
            case .glob(let glob): return .structure([.uint32(0), .string(GlobCaseFolding.fold(glob))])
            case .mime(let type): return .structure([.uint32(1), .string(type)])
            }
        }
        return .structure([.string(filter.name), .array(element: "(us)", patterns)])
    }

    /// The portal's byte strings are NUL-terminated.
    static func terminated(_ path: [UInt8]) -> [UInt8] { path + [0] }
}
