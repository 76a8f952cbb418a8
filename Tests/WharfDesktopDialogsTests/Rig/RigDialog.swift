import WharfDesktopDialogs
import WharfDesktopTestSupport

/// One rig dialog: present it with a unique title, wait for its window to be ready, let the
/// "human" act, wait for the result.
///
/// A window can be mapped and active before GTK is ready for keys (the portal backend logs
/// `gtk_widget_event: assertion 'WIDGET_REALIZED_FOR_EVENT' failed` and drops them), and X
/// offers nothing to wait on for that. So the human's action, which is idempotent (select the
/// location field's text, type the whole path, Return), is repeated when no result came
/// within a few seconds, as a person would do it again; up to `retries` times.
enum RigDialog {
    static func run(_ presenter: any DesktopPresenter, _ request: DesktopDialogRequest, retries: Int = 3,
                    human: (String, DesktopDialogSession) -> Void) -> (DesktopDialogResult?, String) {
        var request = request
        let title = request.title + " " + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        request.title = title
        let session = presenter.present(request) { _ in }
        guard let window = Desktop.waitForWindow("^" + title) else {
            session.cancel()
            return (.failed("no window titled \(title) appeared (result: \(String(describing: session.waitForResult(seconds: 5))))"), title)
        }
        Desktop.waitUntilReady(window)
        for attempt in 1...max(retries, 1) {
            human(window, session)
            if let result = session.waitForResult(seconds: attempt == retries ? 20 : 5) { return (result, title) }
            if Desktop.windows("^" + title).isEmpty { break }
            print("rig: no result from \(title) after attempt \(attempt); the human tries again")
        }
        let result = session.waitForResult(seconds: 5)
        if result == nil { session.cancel(); _ = session.waitForResult(seconds: 10) }
        return (result, title)
    }
}
