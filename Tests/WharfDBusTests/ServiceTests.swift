import Testing
import WharfDBus
import WharfDesktopTestSupport
import WharfSystem

/// Serving calls that are answered later (`BusConnection.serve`, `BusPendingReply`): how
/// `wharf portal` answers a call only when a person is done, without holding up the bus.
@Suite struct ServiceTests {
    /// A call kept open does not hold up others: the second is answered while the first waits,
    /// and the first is answered from another thread when released.
    @Test func aDeferredCallIsAnsweredFromAnotherThreadWhileOthersAreServed() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        let held = Locked<BusPendingReply?>(nil)
        service.serve(path: "/org/wharf/Slow") { call, pending in
            switch call.member {
            case "Wait":
                held.withValue { $0 = pending }
                return .noReply
            case "Now":
                return .reply([.string("now")])
            default:
                return .notHandled
            }
        }
        let client = try bus.connect()
        let first = OneShot<Result<BusMessage, BusError>>()
        client.call(destination: service.uniqueName, path: "/org/wharf/Slow", interface: "org.wharf.Test", member: "Wait",
                    timeoutMs: 10000) { first.set($0) }
        let now = client.callAndWait(destination: service.uniqueName, path: "/org/wharf/Slow", interface: "org.wharf.Test",
                                     member: "Now", timeoutMs: 5000)
        #expect((try? now.get().body) == [.string("now")])
        #expect(first.wait(until: Deadline(secondsFromNow: 0.2)) == nil, "the held call was answered before its reply")
        let pending = try #require(held.withValue { $0 })
        startThread { pending.reply([.uint32(7)]) }
        let answer = try #require(first.wait(until: Deadline(secondsFromNow: 10)))
        #expect((try? answer.get().body) == [.uint32(7)], "\(answer)")
        #expect(!pending.reply([.uint32(8)]), "a second answer was accepted")
        #expect(!pending.fail(BusError(name: BusError.Names.failed, message: "late")))
    }

    @Test func aDeferredCallCanFailWithANamedError() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        service.serve(path: "/org/wharf/Failing") { _, pending in
            startThread { pending.fail(BusError(name: BusError.Names.invalidArgs, message: "option x is wrong")) }
            return .noReply
        }
        let client = try bus.connect()
        let error = client.callAndWait(destination: service.uniqueName, path: "/org/wharf/Failing", interface: "org.wharf.Test",
                                       member: "Any", timeoutMs: 5000).failure
        #expect(error == BusError(name: BusError.Names.invalidArgs, message: "option x is wrong"))
    }

    /// A pending reply dropped unanswered answers Failed: the caller never waits for nothing.
    @Test func aDroppedPendingReplyAnswersFailed() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        service.serve(path: "/org/wharf/Forgetful") { _, _ in .noReply }
        let client = try bus.connect()
        let error = client.callAndWait(destination: service.uniqueName, path: "/org/wharf/Forgetful", interface: "org.wharf.Test",
                                       member: "Any", timeoutMs: 5000).failure
        #expect(error?.name == BusError.Names.failed, "\(String(describing: error))")
        #expect(error?.isTimeout == false)
    }

    /// An object served and then removed answers nothing more: sd-bus says UnknownObject.
    @Test func anUnservedObjectIsGone() throws {
        let bus = try PrivateBus()
        let service = try bus.connect()
        let object = service.serve(path: "/org/wharf/Brief") { _, _ in .reply([]) }
        let client = try bus.connect()
        let call = { client.callAndWait(destination: service.uniqueName, path: "/org/wharf/Brief", interface: "org.wharf.Test",
                                        member: "Any", timeoutMs: 5000) }
        #expect((try? call().get()) != nil)
        service.unsubscribe(object)
        #expect(call().failure?.name == BusError.Names.unknownObject || call().failure?.name == BusError.Names.unknownMethod)
    }
}
