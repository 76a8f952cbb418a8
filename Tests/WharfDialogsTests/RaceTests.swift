import Dispatch
import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// Racing endings are resolved by one transition under the engine's lock: exactly one wins,
/// the others learn the dialog already ended, and the client hears exactly one ending.
@Suite struct RaceTests {
    @Test func cancelRacingChooseEndsEachDialogExactlyOnce() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        for _ in 0..<300 {
            let id = try h.importer()
            let outcomes = Locked<(cancelled: Bool?, chose: Bool?)>((nil, nil))
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                let result = (try? h.engine.cancel(client: h.client, id: id)) ?? false
                outcomes.withValue { $0.cancelled = result }
            }
            DispatchQueue.global().async(group: group) {
                let error = dialogError { try h.engine.choose(client: h.client, id: id, urls: [file]) }
                outcomes.withValue { $0.chose = error == nil }
                if let error { #expect(error == .alreadyEnded(id)) }
            }
            group.wait()
            let events = h.events.events(id)
            #expect(events.count == 2)
            #expect(events.first == .presentationChanged(id, isPresented: false))
            let (cancelled, chose) = outcomes.withValue { $0 }
            // Exactly one side won, and the event says which.
            #expect(cancelled != chose)
            if chose == true {
                guard case .completed = events.last else { Issue.record("choose won but \(events)"); continue }
            } else {
                #expect(events.last == .cancelled(id, .importer, reason: .client))
            }
        }
    }

    @Test func timeoutRacingCancelAndChooseEndsEachDialogExactlyOnce() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        var winners = Set<String>()
        for round in 0..<300 {
            let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 10))
            let group = DispatchGroup()
            // Start the three contenders in a rotating order to vary who gets the lock first.
            let contenders: [@Sendable () -> Void] = [
                { h.scheduler.advance(milliseconds: 10) },
                { _ = try? h.engine.cancel(client: h.client, id: id) },
                { try? h.engine.choose(client: h.client, id: id, urls: [file]) },
            ]
            for offset in 0..<3 {
                DispatchQueue.global().async(group: group, execute: contenders[(round + offset) % 3])
            }
            group.wait()
            h.scheduler.advance(milliseconds: 10)  // a timer not yet fired must find nothing to end
            let events = h.events.events(id)
            #expect(events.count == 2)
            #expect(events.first == .presentationChanged(id, isPresented: false))
            switch events.last {
            case .completed?: winners.insert("choose")
            case .cancelled(_, _, .timeout)?: winners.insert("timeout")
            case .cancelled(_, _, .client)?: winners.insert("cancel")
            default: Issue.record("unexpected ending \(events)")
            }
        }
        #expect(!winners.isEmpty)
    }

    @Test func cancelRacingAFinishingWriterEndsExactlyOnce() throws {
        for _ in 0..<100 {
            let h = Harness()
            let id = try h.textExporter()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                try? h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
            }
            DispatchQueue.global().async(group: group) {
                _ = try? h.engine.cancel(client: h.client, id: id)
            }
            group.wait()
            h.engine.waitForWrites()
            let events = h.events.waitForEnding(id)
            #expect(events.count == 2)
            switch events.last {
            case .completed?:
                #expect(readText(h.dir.at("notes.txt")) == "hello")
            case .cancelled(_, _, .client)?:
                #expect(!exists(h.dir.at("notes.txt")), "a cancelled export leaves nothing behind")
            default:
                Issue.record("unexpected ending \(events)")
            }
        }
    }

    @Test func snapshotReplyRacingCancelEndsExactlyOnce() throws {
        for _ in 0..<100 {
            let h = Harness()
            let id = try h.textExporter(lazy: true)
            try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                try? h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 0, source: .bytes(Array("late".utf8)))
            }
            DispatchQueue.global().async(group: group) {
                _ = try? h.engine.cancel(client: h.client, id: id)
            }
            group.wait()
            h.engine.waitForWrites()
            let events = h.events.waitForEnding(id)
            #expect(events.filter(\.isEnding).count == 1)
            #expect(events.filter { $0 == .presentationChanged(id, isPresented: false) }.count == 1)
            if case .cancelled? = events.last { #expect(!exists(h.dir.at("notes.txt"))) }
        }
    }
}
