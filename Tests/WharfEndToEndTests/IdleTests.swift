import Testing
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// What an idle server costs: a read loop and a worker spin a moment before sleeping
/// (`--spin-microseconds`), after a message and never without one.
@Suite struct IdleServer {
    /// After a burst of requests, each followed by the longest spin the option allows, the
    /// process's processor time stands still: the spins ended.
    @Test func aServerLeftAloneSpendsNoProcessorTime() throws {
        let client = try frontend(["--spin-microseconds", "10000"])
        for _ in 0..<200 { client.settle() }
        let pid = try #require(client.process?.pid)
        #expect(waitUntilIdle(pid, deadline: 20), "wharf kept using the processor with nothing to do")
    }
}
