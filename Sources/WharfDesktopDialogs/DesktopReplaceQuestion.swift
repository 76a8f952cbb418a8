/// Whether to replace files that a save of several documents would write over.
///
/// zenity's and kdialog's folder dialogs (which stand in for the portal's SaveFiles) only pick
/// a folder: nobody was asked about the names in it. When some exist, this question names them
/// and the folder; the human replaces them or goes back to choose another folder.
public struct DesktopReplaceQuestion: Sendable, Equatable {
    /// The dialog's title (the question's window title).
    public var title: String
    /// The folder chosen (an absolute path).
    public var folder: [UInt8]
    /// The names in `folder` that exist already (bare names).
    public var names: [[UInt8]]
    /// As ``DesktopDialogRequest/parentWindow``.
    public var parentWindow: String

    public init(title: String, folder: [UInt8], names: [[UInt8]], parentWindow: String = "") {
        self.title = title
        self.folder = folder
        self.names = names
        self.parentWindow = parentWindow
    }

    static let replaceLabel = "Replace"
    static let otherFolderLabel = "Choose Another Folder"
    /// More names than this are counted, not listed (the window would outgrow the screen).
    static let listed = 10

    /// The question, a sentence and then the names and the folder, one to a line. Names and the
    /// folder are shown, never used as paths, so bytes that are not UTF-8 are shown as U+FFFD.
    /// The first line holds no name: kdialog (Qt) takes a text for HTML when its first line
    /// looks like it, and a name such as `<b>.txt` must not make it so.
    public var text: String {
        let one = names.count == 1
        let shown = names.prefix(Self.listed).map { ToolText.line(String(decoding: $0, as: UTF8.self)) }
        let more = names.count > Self.listed ? ["and \(names.count - Self.listed) more"] : []
        let sentence = one ? "This file already exists in the folder you chose. Replace it?"
            : "These \(names.count) files already exist in the folder you chose. Replace them?"
        let folder = "Folder: " + ToolText.line(String(decoding: self.folder, as: UTF8.self))
        return ([sentence, ""] + shown + more + ["", folder]).joined(separator: "\n")
    }
}
