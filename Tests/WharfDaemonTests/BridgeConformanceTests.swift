import Testing
import WharfServerTestSupport

/// `wharf --connect` is `wharf` over standard I/O to whoever spawns it: every conformance
/// transcript replays through a bridge (each starting a daemon of its own with the
/// transcript's arguments) as it does against `wharf` itself, exit statuses and signals
/// included.
@Suite struct BridgeConformance {
    /// What only standard I/O says: over the daemon a connection may present.
    static let standardIOOnly: Set<String> = ["presenter-role"]

    static var transcripts: [String] {
        ConformanceTranscript.names().filter { !standardIOOnly.contains($0) }
    }

    @Test(arguments: transcripts)
    func transcriptReplaysThroughTheBridge(name: String) throws {
        let transcript = try ConformanceTranscript.load(name)
        let runner = ConformanceRunner(transcript)
        runner.bridged = true
        let failures = runner.run()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
