import WharfDialogs

/// Why a presenter cannot serve a client.
struct PresenterUnavailable: Error, Sendable {
    var message: String
}

/// The desktop's own dialogs, as presenters for the factory.
struct DesktopPresenters: Sendable {
    func presenter(_ kind: DesktopPresenterKind, for session: ClientSession) -> Result<any DialogPresenter, PresenterUnavailable> {
        .failure(PresenterUnavailable(message: "not available in this build"))
    }
}
