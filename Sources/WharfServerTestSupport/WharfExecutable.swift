import Glibc
import WharfTestSupport
import WharfSystem

/// Where the built `wharf` is: `$WHARF`, else next to the running test bundle in `.build/`.
public func wharfExecutablePath() -> String {
    if let override = getenv("WHARF") { return String(cString: override) }
    return builtExecutablePath("wharf")
}
