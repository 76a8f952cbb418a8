/// `fileDialogBrowserOptions`: how the dialog's file browser behaves.
public struct BrowserOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Packages are browsable directories instead of single files.
    public static let enumeratePackages = BrowserOptions(rawValue: 1 << 0)
    /// Files whose names start with `.` are listed and may be chosen.
    public static let includeHiddenFiles = BrowserOptions(rawValue: 1 << 1)
    /// The frontend shows filename extensions (a presentation hint; the engine does not use it).
    public static let displayFileExtensions = BrowserOptions(rawValue: 1 << 2)

    /// The wire names, in a stable order.
    public var names: [String] {
        var names: [String] = []
        if contains(.enumeratePackages) { names.append("enumeratePackages") }
        if contains(.includeHiddenFiles) { names.append("includeHiddenFiles") }
        if contains(.displayFileExtensions) { names.append("displayFileExtensions") }
        return names
    }

    /// The option with this wire name, if there is one.
    public init?(name: String) {
        switch name {
        case "enumeratePackages": self = .enumeratePackages
        case "includeHiddenFiles": self = .includeHiddenFiles
        case "displayFileExtensions": self = .displayFileExtensions
        default: return nil
        }
    }
}
