import Glibc
import Testing
import WharfJSON
import WharfJSONRPC
import WharfSystem

/// What a message is charged against a ``ByteBudget`` (the daemon's per-app budget for its
/// presenter connection) stays counted while the message waits to be written, and comes back
/// once it has been written whole or thrown away with the connection's output.
@Suite struct ChargedMessages {
    @Test func aChargeFitsWithinTheLimitOrAloneAndIsGivenBackWhenLetGo() throws {
        let budget = ByteBudget(limit: 1000)
        var first: BudgetCharge? = try #require(budget.charge(600))
        #expect(budget.charge(600) == nil, "600 more would pass 1000")
        let second = try #require(budget.charge(400))
        #expect(budget.bytesHeld == 1000)
        first = nil
        #expect(budget.bytesHeld == 400)
        withExtendedLifetime(second) {}
        #expect(budget.charge(5000) == nil, "more than the whole budget, while something is held")
        _ = first
    }

    @Test func moreThanTheWholeBudgetGoesAloneWhenNothingElseIsHeld() throws {
        let budget = ByteBudget(limit: 1000)
        let alone = try #require(budget.charge(5000))
        #expect(budget.charge(1) == nil)
        withExtendedLifetime(alone) {}
    }

    @Test func aChargedMessageIsCountedUntilThePeerHasReadItWhole() throws {
        let (connection, peer) = try writingConnection()
        let budget = ByteBudget(limit: 1 << 20)
        // Larger than the socket's buffers: most of it waits in the connection's queue.
        let message = PreparedNotification(method: "big", params: ["padding": .string(String(repeating: "a", count: 4 << 20))])
        connection.send(message, charging: budget.charge(message.byteCount))
        #expect(budget.bytesHeld == message.byteCount)
        ProcessControl.sleep(milliseconds: 50)
        #expect(budget.bytesHeld == message.byteCount, "given back before the peer read it")

        var received = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let header = "Content-Length: \(message.byteCount)\r\n\r\n".utf8.count
        while received < header + message.byteCount {
            let count = try buffer.withUnsafeMutableBytes { try peer.read(into: $0) }
            guard count > 0 else { break }
            received += count
        }
        #expect(received == header + message.byteCount)
        #expect(eventually { budget.bytesHeld == 0 }, "still counted once written")
        connection.stopReading()
        connection.closeOutput()
        peer.close()
    }

    @Test func aChargedMessageThrownAwayWithTheOutputIsGivenBack() throws {
        let (connection, peer) = try writingConnection()
        let budget = ByteBudget(limit: 1 << 20)
        let message = PreparedNotification(method: "big", params: ["padding": .string(String(repeating: "a", count: 4 << 20))])
        connection.send(message, charging: budget.charge(message.byteCount))
        #expect(budget.bytesHeld == message.byteCount)
        connection.closeOutput()
        #expect(eventually { budget.bytesHeld == 0 }, "still counted once thrown away")
        connection.stopReading()
        peer.close()
    }
}

/// A connection, non-blocking as the daemon's are, on one end of a socket pair; the other end is
/// the peer's, which sends nothing and reads only when the test does.
private func writingConnection() throws -> (Connection, FileDescriptor) {
    let (ours, theirs) = try UnixSocket.pair()
    try ours.setNonBlocking()
    var options = Connection.Options(framing: .lsp)
    options.nonBlocking = true
    let connection = Connection(input: ours, output: try ours.duplicate(), options: options)
    connection.start(Connection.Handler(request: { _, _ in }, notification: { _ in }), onEnd: { _ in })
    return (connection, theirs)
}

private func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Deadline(secondsFromNow: seconds)
    while true {
        if condition() { return true }
        if deadline.hasPassed { return false }
        ProcessControl.sleep(milliseconds: 5)
    }
}
