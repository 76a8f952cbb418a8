import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

@Suite struct ManualSchedulerTests {
    @Test func workRunsWhenItsTimeComesInDeadlineThenSchedulingOrder() {
        let scheduler = ManualScheduler()
        let ran = Locked<[String]>([])
        scheduler.after(milliseconds: 20) { ran.withValue { $0.append("b") } }
        scheduler.after(milliseconds: 10) { ran.withValue { $0.append("a") } }
        scheduler.after(milliseconds: 20) { ran.withValue { $0.append("c") } }
        scheduler.advance(milliseconds: 9)
        #expect(ran.withValue { $0 }.isEmpty)
        scheduler.advance(milliseconds: 11)
        #expect(ran.withValue { $0 } == ["a", "b", "c"])
        #expect(scheduler.now == 0.02)
    }

    @Test func workScheduledByDueWorkRunsInTheSameAdvanceIfDue() {
        let scheduler = ManualScheduler()
        let ran = Locked<[Double]>([])
        scheduler.after(milliseconds: 5) {
            ran.withValue { $0.append(scheduler.now) }
            scheduler.after(milliseconds: 5) { ran.withValue { $0.append(scheduler.now) } }
            scheduler.after(milliseconds: 50) { ran.withValue { $0.append(scheduler.now) } }
        }
        scheduler.advance(milliseconds: 20)
        #expect(ran.withValue { $0 } == [0.005, 0.01])
        #expect(scheduler.pendingCount == 1)
    }
}

@Suite struct DialogErrorTests {
    @Test func everyErrorHasADistinctStableName() {
        let id = DialogID(rawValue: "dlg-1")
        let errors: [DialogError] = [
            .invalidArgument(field: "f", reason: "r"), .unknownContentTypes(field: "f", identifiers: ["x"]),
            .emptyDocuments, .invalidPredicate(path: "p", reason: "r"),
            .alreadyPresented(presentationId: "p", dialog: id), .tooManyDialogs(limit: 1), .unknownDialog(id),
            .alreadyEnded(id), .wrongKind(id, expected: .importer, actual: .exporter), .choiceAlreadyMade(id),
            .rejectedChoice(url: "u", reason: "r"), .notAFileURL("u"), .fileExists(url: "u"), .contentTypeNotOffered("t", offered: []),
            .cannotList(directory: "d", reason: "r"), .invalidCursor("c"), .notAwaitingSnapshot(id, documentIndex: 0),
        ]
        #expect(Set(errors.map(\.name)).count == errors.count)
        #expect(errors.filter(\.isInvalidParams).map(\.name)
            == ["invalidArgument", "unknownContentTypes", "emptyDocuments", "invalidPredicate"])
    }

    @Test func lateInputForDialogsEndedLongAgoIsUnknownRatherThanRememberedForever() throws {
        let h = Harness()
        let first = try h.importer()
        try h.engine.dismiss(client: h.client, id: first)
        for _ in 0..<RecentlyEnded.defaultCapacity {
            try h.engine.dismiss(client: h.client, id: h.importer())
        }
        #expect(dialogError { _ = try h.engine.cancel(client: h.client, id: first) } == .unknownDialog(first))
    }
}

@Suite struct RecentlyEndedTests {
    @Test func theOldestIsForgottenOnceTheRingIsFullAndTheRestStay() {
        var ended = RecentlyEnded(capacity: 3)
        let ids = (1...5).map { DialogID(rawValue: "d\($0)") }
        for id in ids { ended.insert(id) }
        #expect(ids.map { ended.contains($0) } == [false, false, true, true, true])
        // Inserting one already remembered neither forgets another nor takes a second slot.
        ended.insert(ids[3])
        #expect(ids.map { ended.contains($0) } == [false, false, true, true, true])
        ended.insert(ids[0])
        #expect(ids.map { ended.contains($0) } == [true, false, false, true, true])
    }
}
