import Glibc
import Testing
import WharfTestSupport
import WharfJSON
import WharfJSONRPC
import WharfSystem

/// What a message is charged against a ``ByteBudget`` (the daemon's per-app budget for its
/// presenter connection) stays counted while the message waits to be written, and comes back
/// once it has been written whole or thrown away with the connection's output.
@Suite struct ChargedMessages {
    @Test func aChargeFitsWithinTheLimitOrAloneAndIsGivenBackWhenLetGo() throws {
        let budget = ByteBudget(limit: 1000)
        var first = budget.charge(600)
        #expect(first != nil)
        #expect(budget.charge(600) == nil, "600 more would pass 1000")
        let second = try #require(budget.charge(400))
        #expect(budget.bytesHeld == 1000)
        first = nil
        #expect(budget.bytesHeld == 400)
        #expect(budget.charge(5000) == nil, "more than the whole budget, while something is held")
        withExtendedLifetime(second) {}
        _ = first
    }

    @Test func moreThanTheWholeBudgetGoesAloneWhenNothingElseIsHeld() throws {
        let budget = ByteBudget(limit: 1000)
        let alone = try #require(budget.charge(5000))
        #expect(budget.charge(1) == nil)
        withExtendedLifetime(alone) {}
    }

    @Test func aChargedMessageIsCountedUntilThePeerHasReadItWhole() throws {
        let unread = try UnreadMessage()
        ProcessControl.sleep(milliseconds: 50)
        #expect(unread.budget.bytesHeld == unread.message.byteCount, "given back before the peer read it")

        var received = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let framed = "Content-Length: \(unread.message.byteCount)\r\n\r\n".utf8.count + unread.message.byteCount
        while received < framed {
            let count = try buffer.withUnsafeMutableBytes { try unread.peer.read(into: $0) }
            guard count > 0 else { break }
            received += count
        }
        #expect(received == framed)
        #expect(eventually { unread.budget.bytesHeld == 0 }, "still counted once written")
        unread.end()
    }

    @Test func aChargedMessageThrownAwayWithTheOutputIsGivenBack() throws {
        let unread = try UnreadMessage()
        unread.connection.closeOutput()
        #expect(eventually { unread.budget.bytesHeld == 0 }, "still counted once thrown away")
        unread.end()
    }
}

/// A message of 4 MiB charged against a budget and sent on a connection as the daemon makes them
/// (LSP framing until the peer has said otherwise) to a peer that has not read it: larger than
/// the socket's buffers, most of it waits in the connection's queue.
private struct UnreadMessage {
    let connection: Connection
    /// The other end of the socket pair: it sends nothing, and reads only when the test does.
    let peer: FileDescriptor
    let budget = ByteBudget(limit: 1 << 20)
    let message = PreparedNotification(method: "big", params: ["padding": .string(String(repeating: "a", count: 4 << 20))])

    init() throws {
        (connection, peer) = try socketConnection()
        connection.start(Connection.Handler(request: { _, _ in }, notification: { _ in }), onEnd: { _ in })
        connection.send(message, charging: budget.charge(message.byteCount))
        #expect(budget.bytesHeld == message.byteCount)
    }

    func end() {
        connection.stopReading()
        connection.closeOutput()
        peer.close()
    }
}
