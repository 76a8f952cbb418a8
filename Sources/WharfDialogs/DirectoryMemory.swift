import WharfSystem

/// Remembers, per app and `customizationId`, the directory a dialog ended in
/// (`fileDialogCustomizationID`): next time, a dialog with the same id opens there, ahead of its
/// `defaultDirectory`, as on macOS. The server backs this with its state store so it survives
/// restarts.
///
/// `rememberedDirectory` is called without the engine's lock, before a dialog is registered.
/// `remember` is called with the lock held, just before the completion is emitted, so that a
/// dialog the client presents in response already opens in the remembered place: keep it
/// quick (one small write) and never call back into the engine from it.
public protocol DirectoryMemory: Sendable {
    func rememberedDirectory(app: String, customizationId: String) -> FilePath?
    func remember(app: String, customizationId: String, directory: FilePath)
}
