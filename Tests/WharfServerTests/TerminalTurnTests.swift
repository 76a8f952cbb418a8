import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfServer

/// One dialog on the terminal at a time, whichever presenter shows it: the terminal picker and
/// the file managers both wait for ``TerminalTurn``.
@Suite struct TerminalTurnTests {
    @Test func dialogsTakeTheTerminalOneAtATime() {
        let counts = Locked((onTerminal: 0, most: 0, shown: 0))
        concurrently(6) { _ in
            TerminalTurn.run {
                counts.withValue { counts in
                    counts.onTerminal += 1
                    counts.most = max(counts.most, counts.onTerminal)
                }
                ProcessControl.sleep(milliseconds: 20)
                counts.withValue { counts in
                    counts.onTerminal -= 1
                    counts.shown += 1
                }
            }
        }
        let result = counts.withValue { $0 }
        #expect(result.shown == 6)
        #expect(result.most == 1)
    }
}
