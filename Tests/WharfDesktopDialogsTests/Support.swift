import WharfDesktopDialogs
import WharfSystem

/// Presents and waits (tests only).
func run(_ presenter: any DesktopPresenter, _ request: DesktopDialogRequest, seconds: Double = 10,
         while body: (DesktopDialogSession) -> Void = { _ in }) -> DesktopDialogResult? {
    let results = Locked<[DesktopDialogResult]>([])
    let session = presenter.present(request) { result in results.withValue { $0.append(result) } }
    body(session)
    let result = session.waitForResult(seconds: seconds)
    // Exactly once: nothing more arrives after the first result.
    ProcessControl.sleep(milliseconds: 50)
    precondition(results.withValue { $0.count } <= 1, "a dialog ended more than once")
    return result
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func open(multiple: Bool = false, directory: Bool = false, title: String = "Open", folder: String? = nil,
          filters: [DesktopDialogFilter] = []) -> DesktopDialogRequest {
    DesktopDialogRequest(kind: .open(multiple: multiple, directory: directory), title: title, filters: filters,
                         currentFolder: folder.map(bytes))
}

extension DesktopDialogResult {
    var paths: [[UInt8]]? {
        if case .chosen(let choice) = self { return choice.paths }
        return nil
    }
    var failure: String? {
        if case .failed(let reason) = self { return reason }
        return nil
    }
}

/// Milliseconds since `start` (a `monotonicNanoseconds()` reading).
func millisecondsSince(_ start: UInt64) -> Int { Int((monotonicNanoseconds() - start) / 1_000_000) }
