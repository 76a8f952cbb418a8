import Testing
@testable import WharfTerminal

@Suite struct TerminfoTests {
    @Test func placeholder() {}
}
