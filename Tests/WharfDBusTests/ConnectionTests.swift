import Testing
import WharfDBus
import WharfDesktopTestSupport
import WharfSystem

/// Errors, timeouts, signals and the end of connections, against a private `dbus-daemon`.
@Suite struct ConnectionTests {
    @Test func anErrorReplyKeepsItsNameAndMessage() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let client = try bus.connect()
        let error = client.callAndWait(destination: EchoService.name, path: EchoService.path, interface: EchoService.interface,
                                       member: "Fail", body: [.string("why")], timeoutMs: 5000).failure
        #expect(error == BusError(name: "org.wharf.Test.Error.Refused", message: "refused: why"))
    }

    @Test func aServiceThatNeverAnswersTimesOutOnTime() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let client = try bus.connect()
        let started = Deadline(secondsFromNow: 3)
        let error = client.callAndWait(destination: EchoService.name, path: EchoService.path, interface: EchoService.interface,
                                       member: "Hang", timeoutMs: 300).failure
        #expect(error?.isTimeout == true, "\(String(describing: error))")
        #expect(!started.hasPassed, "a 300 ms timeout took more than 3 s")
    }

    @Test func aNameNobodyOwnsIsServiceUnknownAtOnce() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        let error = client.callAndWait(destination: "org.freedesktop.portal.Desktop", path: "/", interface: "x.y",
                                       member: "Z", timeoutMs: 5000).failure
        #expect(error?.isNoSuchService == true, "\(String(describing: error))")
    }

    @Test func aSignalSentBeforeTheReplyReachesASubscriptionMadeBeforeTheCall() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let client = try bus.connect()
        let seen = Locked<[String]>([])
        client.subscribe(BusMatchRule(path: EchoService.path, interface: EchoService.interface, member: "Ping")) { message in
            seen.withValue { $0.append("signal \(message.body.first?.stringValue ?? "")") }
        }
        let reply = client.callAndWait(destination: EchoService.name, path: EchoService.path, interface: EchoService.interface,
                                       member: "SignalFirst", body: [.string("early")], timeoutMs: 5000)
        seen.withValue { $0.append("reply \(reply.map { $0.body.first?.stringValue ?? "" }.failureMessage ?? (try? reply.get().body.first?.stringValue) ?? "")") }
        #expect(seen.withValue { $0 } == ["signal early", "reply reply"])
    }

    @Test func nameOwnerChangedTellsWhenAServiceLeaves() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let client = try bus.connect()
        let left = OneShot<[BusValue]>()
        client.subscribe(.nameOwnerChanged(EchoService.name)) { message in
            if message.body.count == 3, message.body[2] == .string("") { left.set(message.body) }
        }
        // A round trip after subscribing, so the match is in force before the service leaves.
        _ = client.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "GetId", timeoutMs: 5000)
        service.close()
        let body = left.wait(until: Deadline(secondsFromNow: 5))
        #expect(body?.first == .string(EchoService.name))
        #expect(body?[1] == .string(service.uniqueName))
    }

    @Test func closingFailsTheCallsStillWaiting() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let client = try bus.connect()
        let answer = OneShot<Result<BusMessage, BusError>>()
        client.call(destination: EchoService.name, path: EchoService.path, interface: EchoService.interface,
                    member: "Hang", timeoutMs: 60_000) { answer.set($0) }
        _ = client.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "GetId", timeoutMs: 5000)
        client.close()
        let result = answer.wait(until: Deadline(secondsFromNow: 5))
        #expect(result?.failure?.name == BusError.Names.disconnected)
        #expect(!client.isOpen)
        // And a call after closing fails rather than hanging.
        let late = client.callAndWait(destination: "x.y", path: "/", interface: "x.y", member: "Z", timeoutMs: 100)
        #expect(late.failure?.name == BusError.Names.disconnected)
    }

    /// A process about to exit closes its connection and waits: the wait ends once the
    /// connection is closed, and a reply handed over just before has been sent.
    @Test func closingAndWaitingEndsOnceClosedWithTheRepliesHandedOverSent() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        let held = OneShot<BusPendingReply>()
        service.serve(path: "/org/wharf/Later") { _, pending in
            held.set(pending)
            return .noReply
        }
        let client = try bus.connect()
        let answer = OneShot<Result<BusMessage, BusError>>()
        client.call(destination: service.uniqueName, path: "/org/wharf/Later", interface: "org.wharf.Test", member: "Ask",
                    timeoutMs: 10_000) { answer.set($0) }
        let pending = try #require(held.wait(until: Deadline(secondsFromNow: 10)))
        _ = pending.reply([.string("answered")])
        let started = Deadline(secondsFromNow: 5)
        #expect(service.close(waitingUpTo: 10_000), "the wait ended before the connection had closed")
        #expect(!started.hasPassed, "closing took seconds")
        #expect(!service.isOpen)
        let reply = try #require(answer.wait(until: Deadline(secondsFromNow: 10)))
        #expect((try? reply.get().body) == [.string("answered")], "\(reply)")
    }

    @Test func theBusGoingAwayFailsWaitingCallsAndTellsTheOwner() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let lost = OneShot<BusError>()
        let client = try BusConnection.openAndWait(address: bus.address, timeoutMs: 5000).get()
        _ = client
        let watched = OneShot<Result<BusConnection, BusError>>()
        BusConnection.open(address: bus.address, timeoutMs: 5000, onDisconnect: { lost.set($0) }) { watched.set($0) }
        let connection = try #require(watched.wait(until: Deadline(secondsFromNow: 5))).get()
        let answer = OneShot<Result<BusMessage, BusError>>()
        connection.call(destination: EchoService.name, path: EchoService.path, interface: EchoService.interface,
                        member: "Hang", timeoutMs: 60_000) { answer.set($0) }
        _ = connection.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "GetId", timeoutMs: 5000)
        bus.stop()
        #expect(answer.wait(until: Deadline(secondsFromNow: 5))?.failure != nil)
        #expect(lost.wait(until: Deadline(secondsFromNow: 5)) != nil)
    }

    @Test func nothingListeningIsAnImmediateReason() throws {
        let result = BusConnection.openAndWait(address: "unix:path=/nonexistent/wharf-bus", timeoutMs: 2000)
        let error = try #require(result.failure)
        #expect(error.message.contains("cannot connect to the D-Bus session bus at unix:path=/nonexistent/wharf-bus"))
    }

    @Test func withoutAnAddressOrARuntimeDirectoryThereIsNoSessionBus() {
        #expect(BusAddress.session(environment: [:]).failureMessage
            == "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are not set")
        #expect(BusAddress.session(environment: ["XDG_RUNTIME_DIR": "/nonexistent"]).failureMessage
            == "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and /nonexistent/bus does not exist")
        #expect((try? BusAddress.session(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]).get()) == "unix:path=/x")
    }

    @Test func matchRulesQuoteTheirValues() {
        #expect(BusMatchRule(path: "/a", interface: "i.j", member: "M").description == "type='signal',path='/a',interface='i.j',member='M'")
        #expect(BusMatchRule(arg0: "it's").description == "type='signal',arg0='it'\\''s'")
        // A quote followed by a combining mark is one Character with it, and still a quote.
        #expect(BusMatchRule(arg0: "'\u{301}").description == "type='signal',arg0=''\\''\u{301}'")
    }
}

/// Regression: a finished call once released the exported object that happened to share its
/// number, and the service answered "Unknown object" from then on.
@Suite struct ExportLifetimeTests {
    /// An object a method's handler exports is there for the next message: a peer answered by
    /// that handler may call it at once (a portal's Request object, closed as soon as its path
    /// is known). The second call is sent before the first is answered, so it is waiting to be
    /// read when the first handler returns.
    @Test func anObjectExportedByAHandlerServesTheVeryNextCall() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        service.export(path: "/org/wharf/Maker") { call in
            guard call.member == "Make" else { return .notHandled }
            service.export(path: "/org/wharf/Made") { _ in .reply([.string("made")]) }
            ProcessControl.sleep(milliseconds: 100)  // the client's next call arrives meanwhile
            return .reply([])
        }
        let name = service.uniqueName
        let client = try bus.connect()
        let made = OneShot<Result<BusMessage, BusError>>()
        client.call(destination: name, path: "/org/wharf/Maker", interface: "org.wharf.Test", member: "Make", timeoutMs: 5000) { _ in }
        client.call(destination: name, path: "/org/wharf/Made", interface: "org.wharf.Test", member: "Which", timeoutMs: 5000) {
            made.set($0)
        }
        let reply = try #require(made.wait(until: Deadline(secondsFromNow: 10)))
        #expect((try? reply.get().body) == [.string("made")], "\(reply)")
    }

    @Test func anExportedObjectOutlivesManyCallsOfItsOwnConnection() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        for _ in 0..<300 {
            _ = service.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "GetId", timeoutMs: 5000)
        }
        let client = try bus.connect()
        let reply = client.callAndWait(destination: EchoService.name, path: EchoService.path, interface: EchoService.interface,
                                       member: "Echo", body: [.string("still here")], timeoutMs: 5000)
        #expect((try? reply.get().body) == [.string("still here")])
    }
}
