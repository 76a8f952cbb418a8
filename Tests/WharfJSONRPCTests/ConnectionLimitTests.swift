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
        var options = Connection.Options()
        options.maxPendingRequests = 2
        let holding = HoldingHandler()
        let (connection, client) = try pipeConnection(options, holding.handler)
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

    /// A batch's requests are read one by one against `maxPendingRequests`: it was read whole
    /// (40 `readFile`s of 16 MiB in one array were all at work at once).
    @Test func aBatchsRequestsCountAgainstTheRequestsWaitingForAnswers() throws {
        var options = Connection.Options()
        options.maxPendingRequests = 2
        let holding = HoldingHandler()
        let (connection, client) = try pipeConnection(options, holding.handler)
        client.send(.array((1...5).map { ["jsonrpc": "2.0", "id": .int($0), "method": "hold"] }))

        #expect(eventually { holding.count == 2 })
        ProcessControl.sleep(milliseconds: 100)
        #expect(holding.count == 2, "a third request of the batch was read while two waited for answers")
        for _ in 0..<5 {
            #expect(eventually { holding.count > 0 })
            holding.answerFirst()
        }
        let answers = try #require(client.nextMessage()?.arrayValue)
        #expect(answers.map { $0["id"]?.intValue ?? 0 }.sorted() == [1, 2, 3, 4, 5])
        connection.stopReading()
    }

    /// A batch's answers go out together, so the output budget cannot be kept by writing some:
    /// a request that would take its batch past the budget is answered -32600 instead (the
    /// first always fits). Before, each answer's reservation was given back as it joined the
    /// batch: ten 16 MiB `readFile`s in one array took the daemon to 716 MiB.
    @Test(arguments: [true, false])
    func aBatchsAnswersStayWithinTheOutputBudget(reserving: Bool) throws {
        var options = Connection.Options()
        options.backlogLimit = 1000
        // Reserving, the way a method answered by a worker does; or not, as one answered on the
        // read loop does: then the answer itself is what is counted.
        let (connection, client) = try pipeConnection(options, Connection.Handler(request: { _, reply in
            do {
                if reserving { try reply.reserve(bytes: 600) }
                reply.succeed(.string(String(repeating: "x", count: 600)))
            } catch let error as ResponseError {
                reply.fail(error)
            } catch {
                Issue.record("reserve threw \(error)")
            }
        }, notification: { _ in }))
        client.send(.array((1...3).map { ["jsonrpc": "2.0", "id": .int($0), "method": "large"] }))

        let answers = try #require(client.nextMessage()?.arrayValue)
        let byID = Dictionary(uniqueKeysWithValues: answers.map { (Int($0["id"]?.intValue ?? 0), $0) })
        #expect(byID[1]?["result"]?.stringValue?.count == 600)
        for id in [2, 3] {
            #expect(byID[id]?["error"]?["code"] == -32600)
            #expect(byID[id]?["error"]?["message"]?.stringValue?.contains("smaller batch") == true)
        }
        #expect(eventually { connection.outstandingOutputBytes == 0 }, "the batch gave back what it held once written")
        client.send(.array([["jsonrpc": "2.0", "id": 4, "method": "large"]]))
        #expect(client.nextMessage()?.arrayValue?.first?["result"]?.stringValue?.count == 600, "the budget is whole again")
        connection.stopReading()
    }

    /// An answer in a batch is judged by its own size, not by what requests still being worked
    /// on reserved: a reservation is a bound (`readFile` reserves its whole `length`, 16 MiB by
    /// default, for a file of 5 bytes). Before, a `ping` answered while such a `readFile` was
    /// being read was refused -32600 ("would take its batch's answers past …"), and so was the
    /// second of two small `readFile`s, although the batch's array was a few hundred bytes.
    @Test func aBatchJudgesAnswersByTheirSizeNotByReservations() throws {
        var options = Connection.Options()
        options.backlogLimit = 1000
        let holding = HoldingHandler()
        let (connection, client) = try pipeConnection(options, Connection.Handler(request: { request, reply in
            if request.method == "estimate" {
                do { try reply.reserve(bytes: 5000) } catch { Issue.record("reserve threw \(error)") }
                holding.held.withValue { $0.append(reply) }
            } else {
                reply.succeed(.string("small"))
            }
        }, notification: { _ in }))
        client.send(.array([["jsonrpc": "2.0", "id": 1, "method": "estimate"], ["jsonrpc": "2.0", "id": 2, "method": "small"],
                            ["jsonrpc": "2.0", "id": 3, "method": "estimate"]]))
        #expect(eventually { holding.count == 2 })
        holding.answerFirst()
        holding.answerFirst()
        let answers = try #require(client.nextMessage()?.arrayValue)
        let byID = Dictionary(uniqueKeysWithValues: answers.map { (Int($0["id"]?.intValue ?? 0), $0) })
        #expect(byID[1]?["result"] == ["answered": true], "\(answers)")
        #expect(byID[2]?["result"] == "small", "\(answers)")
        #expect(byID[3]?["result"] == ["answered": true], "\(answers)")
        #expect(eventually { connection.outstandingOutputBytes == 0 }, "the batch gave back what it held once written")
        connection.stopReading()
    }

    /// The read loop stops between two messages of one chunk of input while the peer has more
    /// output unread than its budget: it answered a whole chunk of requests first, so small
    /// requests with large answers (`contentTypes/describe`, answered on the loop) grew the
    /// output without bound.
    @Test func readingPausesWithinAChunkWhileTheOutputIsOverBudget() throws {
        let (ours, theirs) = try UnixSocket.pair()
        try ours.setNonBlocking()
        var options = Connection.Options()
        options.nonBlocking = true
        options.backlogLimit = 1 << 20
        let connection = Connection(input: ours, output: try ours.duplicate(), options: options)
        let answered = Locked(0)
        connection.start(Connection.Handler(request: { _, reply in
            answered.withValue { $0 += 1 }
            reply.succeed(.string(String(repeating: "x", count: 1 << 20)))
        }, notification: { _ in }), onEnd: { [connection] _ in connection.closeOutput() })
        let requests = (1...6).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"large"}"# + "\n" }.joined()
        try theirs.write(all: Array(requests.utf8))

        #expect(eventually { answered.withValue { $0 } >= 2 })
        ProcessControl.sleep(milliseconds: 200)
        #expect(answered.withValue { $0 } == 2, "requests were answered while the peer had 2 MiB unread")
        // Once the peer reads, every answer comes.
        var newlines = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while newlines < 6 {
            let count = try buffer.withUnsafeMutableBytes { try theirs.read(into: $0) }
            guard count > 0 else { break }
            newlines += buffer[..<count].filter { $0 == 0x0A }.count
        }
        #expect(newlines == 6)
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

/// A connection reading and writing pipes, started with `handler`, and a client at their
/// other ends.
func pipeConnection(_ options: Connection.Options, _ handler: Connection.Handler) throws -> (Connection, WireClient) {
    let toServer = try makePipe(), fromServer = try makePipe()
    let connection = Connection(input: FileDescriptor(taking: toServer.read), output: FileDescriptor(taking: fromServer.write),
                                options: options)
    connection.start(handler, onEnd: { [connection] _ in connection.closeOutput() })
    return (connection, WireClient(writingTo: toServer.write, readingFrom: fromServer.read))
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
