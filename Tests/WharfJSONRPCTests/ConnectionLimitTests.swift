import Glibc
import Testing
import WharfJSON
import WharfJSONRPC
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// A connection's limits and the daemon's way of reading and writing: requests waiting for
/// answers stop the reading, a non-blocking connection stops when told, and descriptors
/// passed over a socket are claimed by number.
@Suite struct ConnectionLimits {
    /// A handler that answers nothing until told to: what it holds is what was read.
    final class HoldingHandler: Sendable {
        let held = Locked<[Reply]>([])

        var handler: Connection.Handler {
            Connection.Handler(request: { [held] _, reply in held.withValue { $0.append(reply) } }, notification: { _ in })
        }

        var count: Int { held.withValue { $0.count } }

        func answerFirst() {
            let reply = held.withValue { $0.removeFirst() }
            reply.succeed(["answered": true])
        }
    }

    @Test func readingPausesWhileTooManyRequestsWaitForAnswers() throws {
        let toServer = try makePipe(), fromServer = try makePipe()
        var options = Connection.Options()
        options.maxPendingRequests = 2
        let connection = Connection(input: FileDescriptor(taking: toServer.read), output: FileDescriptor(taking: fromServer.write),
                                    options: options)
        let holding = HoldingHandler()
        connection.start(holding.handler, onEnd: { [connection] _ in connection.closeOutput() })
        let client = WireClient(writingTo: toServer.write, readingFrom: fromServer.read)
        let ids = (0..<5).map { _ in client.sendRequest("hold", [:]) }

        #expect(eventually { holding.count == 2 })
        ProcessControl.sleep(milliseconds: 100)
        #expect(holding.count == 2, "a third request was read while two waited for answers")
        holding.answerFirst()
        #expect(client.response(to: ids[0])?["result"] == ["answered": true])
        #expect(eventually { holding.count == 2 }, "one answered, the next is read")
        for _ in 1..<5 {
            #expect(eventually { holding.count > 0 })
            holding.answerFirst()
        }
        for id in ids.dropFirst() { #expect(client.response(to: id)?["result"] == ["answered": true]) }
        connection.stopReading()
    }

    @Test func stopReadingInterruptsANonBlockingReadLoopWaitingForInput() throws {
        let (connection, theirs) = try socketConnection()
        let ended = Locked<Connection.EndReason?>(nil)
        connection.start(HoldingHandler().handler, onEnd: { reason in ended.withValue { $0 = reason } })
        ProcessControl.sleep(milliseconds: 20)
        connection.stopReading()
        #expect(eventually { ended.withValue { $0 } == .stopped })
        _ = theirs
    }

    @Test func descriptorsPassedOverTheSocketAreClaimedByNumberOnce() throws {
        let (connection, theirs) = try socketConnection()
        connection.start(Connection.Handler(request: { request, reply in
            let number = Int(request.params?["fd"]?.intValue ?? -1)
            let descriptor = connection.descriptors?.take(number)
            let regular = descriptor.flatMap { try? $0.status() }?.kind == .regular
            reply.succeed(["claimed": .bool(descriptor != nil), "regular": .bool(regular)])
        }, notification: { _ in }), onEnd: { [connection] _ in connection.closeOutput() })
        let scratch = ScratchDirectory("wharf-passing")
        let file = try FileDescriptor.open(scratch.write("a.txt", "a"), O_RDONLY)
        let body = Array(#"{"jsonrpc":"2.0","id":1,"method":"take","params":{"fd":0}}"#.utf8) + [0x0A]
        try theirs.send(body, passing: [file, file])
        try theirs.write(all: Array(#"{"jsonrpc":"2.0","id":2,"method":"take","params":{"fd":0}}"#.utf8) + [0x0A])
        try theirs.write(all: Array(#"{"jsonrpc":"2.0","id":3,"method":"take","params":{"fd":1}}"#.utf8) + [0x0A])
        try theirs.write(all: Array(#"{"jsonrpc":"2.0","id":4,"method":"take","params":{"fd":2}}"#.utf8) + [0x0A])
        var answers: [JSON] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text = ""
        while answers.count < 4 {
            let count = try buffer.withUnsafeMutableBytes { try theirs.read(into: $0) }
            guard count > 0 else { break }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            while let newline = text.firstIndex(of: "\n") {
                answers.append(try JSON.parse(Array(text[..<newline].utf8)))
                text.removeSubrange(...newline)
            }
        }
        let byID = Dictionary(uniqueKeysWithValues: answers.map { ($0["id"]?.intValue ?? 0, $0["result"]) })
        #expect(byID[1] == ["claimed": true, "regular": true])
        #expect(byID[2] == ["claimed": false, "regular": false], "each descriptor is claimed once")
        #expect(byID[3] == ["claimed": true, "regular": true], "the second of one sendmsg is number 1")
        #expect(byID[4] == ["claimed": false, "regular": false], "no descriptor 2 was passed")
        connection.stopReading()
    }
}

/// A connection over one end of a socket pair, as the daemon makes them (non-blocking, taking
/// passed descriptors); the other end is the peer's.
func socketConnection() throws -> (Connection, FileDescriptor) {
    let (ours, theirs) = try UnixSocket.pair()
    try ours.setNonBlocking()
    var options = Connection.Options()
    options.nonBlocking = true
    options.passesDescriptors = true
    return (Connection(input: ours, output: try ours.duplicate(), options: options), theirs)
}

/// True once `condition` holds, checked every 5 ms for up to `seconds`.
func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Deadline(secondsFromNow: seconds)
    while true {
        if condition() { return true }
        if deadline.hasPassed { return false }
        ProcessControl.sleep(milliseconds: 5)
    }
}

/// A socket's description is shared with whoever passed it (a bridge's editor), who may clear
/// `O_NONBLOCK` on it: the connection's writes must still never wait for that peer to read.
/// They did: the drain ran `writev` on a thread of the shared pool, which then waited for as
/// long as the peer did not read, and forty such connections held all 32 of its threads, so
/// every timer of every client (a dialog's `timeoutMs`) stopped.
@Suite struct SharedSocketDescriptions {
    @Test func aPeerThatClearsNonBlockingHoldsNoThreadOfTheSharedPool() throws {
        var peers: [FileDescriptor] = []
        var connections: [Connection] = []
        for _ in 0..<40 {
            let (ours, theirs) = try UnixSocket.pair()
            try ours.setNonBlocking()
            var options = Connection.Options()
            options.nonBlocking = true
            let connection = Connection(input: ours, output: try ours.duplicate(), options: options)
            connection.start(Connection.Handler(request: { _, reply in reply.succeed(.null) }, notification: { _ in }),
                             onEnd: { [connection] _ in connection.closeOutput() })
            // The one who passed the socket clears O_NONBLOCK on the description we share.
            _ = fcntl(ours.raw, F_SETFL, fcntl(ours.raw, F_GETFL) & ~O_NONBLOCK)
            // More than the socket holds, and nobody reads it.
            connection.send(notification: "flood", params: ["text": .string(String(repeating: "x", count: 1 << 20))])
            peers.append(theirs)
            connections.append(connection)
        }
        let fired = OneShot<Void>()
        TimerQueue.shared.after(milliseconds: 10) { fired.set(()) }
        #expect(fired.wait(until: Deadline(secondsFromNow: 5)) != nil, "the shared pool's threads were all waiting to write")
        // The peers go: a write still waiting (without the fix) fails and lets its thread go.
        for peer in peers { peer.close() }
        for connection in connections { connection.stopReading() }
    }
}
