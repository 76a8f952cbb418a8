/// Whether a presenter can show dialogs here, and if not, why, in a sentence for the user.
public struct DesktopPresenterProbe: Sendable, Equatable, CustomStringConvertible {
    public var kind: DesktopPresenterKind
    /// Why it cannot be used; nil when it can.
    public var problem: String?
    /// What was found: the portal's FileChooser version, the tool's path.
    public var detail: String?

    public init(kind: DesktopPresenterKind, problem: String? = nil, detail: String? = nil) {
        self.kind = kind
        self.problem = problem
        self.detail = detail
    }

    public var isUsable: Bool { problem == nil }

    public var description: String {
        if let problem { return "\(kind.rawValue): unusable: \(problem)" }
        return "\(kind.rawValue): usable" + (detail.map { " (\($0))" } ?? "")
    }
}
