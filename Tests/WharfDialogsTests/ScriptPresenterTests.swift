import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// The script presenter answers dialogs from typed steps, in order, across dialogs.
@Suite struct ScriptPresenterTests {
    func script(_ h: Harness, _ steps: [ScriptStep]) -> ScriptPresenter {
        ScriptPresenter(steps: steps, scheduler: h.scheduler)
    }

    func failure(_ h: Harness, _ id: DialogID) -> DialogFailure? {
        guard case .failed(_, _, let failure)? = h.events.events(id).last else { return nil }
        return failure
    }

    @Test func chooseAnswersAnImporterAtOnceWhenNothingElseIsServed() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        let presenter = script(h, [.choose(["a.txt"])])
        let id = try h.importer(presenter: presenter)
        // Answered while the engine delivered `show` (no thread hop), after the dialog was
        // announced: the ending is in the events without the scheduler running.
        guard case .completed(_, .importer, let files, _, _)? = h.events.events(id).last else {
            Issue.record("expected completion, got \(h.events.events(id))")
            return
        }
        #expect(files.map(\.path) == [file], "relative paths are taken from the dialog's directory")
        #expect(presenter.remainingSteps == 0)
    }

    @Test func dialogsWaitingBehindOneAreServedOnItsThreadWhenItEnds() throws {
        let h = Harness()
        h.dir.makeFile("a.txt")
        let presenter = script(h, [.delay(milliseconds: 10), .choose(["a.txt"]), .choose(["a.txt"]), .dismiss])
        let first = try h.importer(presenter: presenter)
        let second = try h.importer(presenter: presenter)
        let third = try h.importer(presenter: presenter)
        #expect(h.scheduler.scheduledCount == 1, "only the delay waits on the scheduler")
        h.scheduler.advance(milliseconds: 10)
        for id in [first, second] {
            guard case .completed(_, .importer, _, _, _)? = h.events.events(id).last else {
                Issue.record("expected \(id) completed, got \(h.events.events(id))")
                continue
            }
        }
        #expect(h.events.events(third).last == .cancelled(third, .importer, reason: .user))
        #expect(h.scheduler.scheduledCount == 1, "the dialogs behind the first took no turn through the scheduler")
        #expect(presenter.remainingSteps == 0)
    }

    @Test func dismissCancelsWithReasonUser() throws {
        let h = Harness()
        let id = try h.importer(presenter: script(h, [.dismiss]))
        h.scheduler.advance()
        #expect(h.events.events(id) == ending(id, .cancelled(id, .importer, reason: .user)))
    }

    @Test func delayWaitsOnTheSchedulerWithoutBlocking() throws {
        let h = Harness()
        h.dir.makeFile("a.txt")
        let id = try h.importer(presenter: script(h, [.delay(milliseconds: 300), .choose(["a.txt"])]))
        h.scheduler.advance(milliseconds: 299)
        #expect(h.events.events(id).isEmpty)
        h.scheduler.advance(milliseconds: 1)
        #expect(h.events.events(id).count == 2)
    }

    @Test func expectationsThatHoldLetTheScriptGoOn() throws {
        let h = Harness()
        h.dir.makeFile("a.txt")
        let expectation = ScriptExpectation(
            kind: .importer, allowedContentTypes: ["public.plain-text"], allowsMultipleSelection: false,
            title: "Open", message: nil, directory: FilePath(h.dir.path.description + "/"), browserOptions: [])
        let id = try h.importer(
            options: DialogOptions(defaultDirectory: h.dir.path, title: "Open"),
            presenter: script(h, [.expect(expectation), .choose(["a.txt"])]))
        h.scheduler.advance()
        guard case .completed? = h.events.events(id).last else {
            Issue.record("expected completion, got \(h.events.events(id))")
            return
        }
    }

    @Test func aFailedExpectationFailsTheDialogNamingFieldExpectedAndActual() throws {
        let h = Harness()
        let presenter = script(h, [.expect(ScriptExpectation(title: "Save")), .choose(["a.txt"]), .dismiss])
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, title: "Open"), presenter: presenter)
        h.scheduler.advance()
        let failed = try #require(failure(h, id))
        #expect(failed.code == .presenterFailed)
        #expect(failed.message.contains("title: expected \"Save\", got \"Open\""))
        // The failed dialog's own steps are skipped; the next dialog gets the next ones.
        let next = try h.importer(presenter: presenter)
        h.scheduler.advance()
        #expect(h.events.events(next).last == .cancelled(next, .importer, reason: .user))
    }

    @Test func exporterExpectationsCheckNameTypesAndLabel() throws {
        let h = Harness()
        let presenter = script(h, [
            .expect(ScriptExpectation(kind: .exporter, filename: "notes.txt", contentTypes: ["public.plain-text"], filenameLabel: "Name:")),
            .expect(ScriptExpectation(filename: "other.txt")),
        ])
        var request = ExporterRequest(
            documents: [ExportDocument(filename: "notes", writableContentTypes: ["public.plain-text"], contents: .bytes([]))])
        request.options.filenameLabel = "Name:"
        let id = try h.exporter(request, presenter: presenter)
        h.scheduler.advance()
        #expect(failure(h, id)?.message.contains("filename: expected \"other.txt\", got \"notes.txt\"") == true)
    }

    @Test func aRejectedChoiceFailsTheDialogBecauseAScriptCannotRetry() throws {
        let h = Harness()
        h.dir.makeFile("a.pdf")
        let id = try h.importer(presenter: script(h, [.choose(["a.pdf"])]))
        h.scheduler.advance()
        let failed = try #require(failure(h, id))
        #expect(failed.code == .presenterFailed)
        #expect(failed.message.contains("rejected"))
        #expect(failed.message.contains("a.pdf"))
    }

    @Test func runningOutOfStepsFailsTheDialogClearly() throws {
        let h = Harness()
        let presenter = script(h, [.dismiss])
        _ = try h.importer(presenter: presenter)
        let second = try h.importer(presenter: presenter)
        h.scheduler.advance()
        #expect(failure(h, second)?.message.contains("no steps left") == true)
    }

    @Test func stepsOfTheWrongKindFailTheDialog() throws {
        let h = Harness()
        let id = try h.importer(presenter: script(h, [.save(path: nil, contentType: nil, overwrite: false)]))
        h.scheduler.advance()
        #expect(failure(h, id)?.message.contains("answers an exporter") == true)
        let exporter = try h.textExporter()
        _ = exporter
        let other = try h.exporter(
            ExporterRequest(documents: [ExportDocument(writableContentTypes: ["public.plain-text"], contents: .bytes([]))]),
            presenter: script(h, [.choose(["x"])]))
        h.scheduler.advance()
        #expect(failure(h, other)?.message.contains("answers an importer") == true)
    }

    @Test func saveWritesAnExportToTheSuggestionOrAGivenPlace() throws {
        let h = Harness()
        h.dir.directory("out")
        let presenter = script(h, [
            .save(path: nil, contentType: nil, overwrite: false),
            .save(path: "out/custom.json", contentType: "public.json", overwrite: false),
        ])
        let first = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "doc", writableContentTypes: ["public.plain-text", "public.json"], contents: .bytes(Array("1".utf8)))]),
            presenter: presenter)
        h.scheduler.advance()
        h.events.waitForEnding(first)
        #expect(readText(h.dir.at("doc.txt")) == "1")
        let second = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "doc", writableContentTypes: ["public.plain-text", "public.json"], contents: .bytes(Array("2".utf8)))]),
            presenter: presenter)
        h.scheduler.advance()
        guard case .completed(_, _, _, let types, _)? = h.events.waitForEnding(second).last else {
            Issue.record("the second export should complete")
            return
        }
        #expect(types == ["public.json"])
        #expect(readText(h.dir.at("out/custom.json")) == "2")
    }

    @Test func aRejectedSaveFailsTheDialog() throws {
        let h = Harness()
        h.dir.makeFile("notes.txt", "old")
        let id = try h.textExporter()
        _ = id
        let scripted = try h.exporter(
            ExporterRequest(documents: [ExportDocument(filename: "notes", writableContentTypes: ["public.plain-text"], contents: .bytes([]))]),
            presenter: script(h, [.save(path: nil, contentType: nil, overwrite: false)]))
        h.scheduler.advance()
        #expect(failure(h, scripted)?.message.contains("already exists") == true)
        #expect(readText(h.dir.at("notes.txt")) == "old")
    }

    @Test func dialogsAreServedOneAtATimeInTheOrderShown() throws {
        let h = Harness()
        h.dir.makeFile("a.txt")
        h.dir.makeFile("b.txt")
        let presenter = script(h, [.delay(milliseconds: 100), .choose(["a.txt"]), .choose(["b.txt"])])
        let first = try h.importer(presenter: presenter)
        let second = try h.importer(presenter: presenter)
        h.scheduler.advance(milliseconds: 50)
        #expect(h.events.events(second).isEmpty, "the second waits for the first to be answered")
        h.scheduler.advance(milliseconds: 50)
        func chosen(_ id: DialogID) -> String? {
            guard case .completed(_, _, let files, _, _)? = h.events.events(id).last else { return nil }
            return files.first.map { String(decoding: $0.path.lastComponent, as: UTF8.self) }
        }
        #expect(chosen(first) == "a.txt")
        #expect(chosen(second) == "b.txt")
    }

    @Test func aDialogEndedByTheAppForfeitsItsRemainingSteps() throws {
        let h = Harness()
        h.dir.makeFile("a.txt")
        h.dir.makeFile("b.txt")
        let presenter = script(h, [.delay(milliseconds: 1000), .choose(["a.txt"]), .choose(["b.txt"])])
        let first = try h.importer(presenter: presenter)
        h.scheduler.advance(milliseconds: 10)
        _ = try h.engine.cancel(client: h.client, id: first)
        #expect(h.events.events(first).last == .cancelled(first, .importer, reason: .client))
        let second = try h.importer(presenter: presenter)
        h.scheduler.advance(milliseconds: 2000)
        guard case .completed(_, _, let files, _, _)? = h.events.events(second).last else {
            Issue.record("the second dialog should take the next dialog's steps: \(h.events.events(second))")
            return
        }
        #expect(files.map { String(decoding: $0.path.lastComponent, as: UTF8.self) } == ["b.txt"])
        #expect(presenter.remainingSteps == 0)
    }

    @Test func aDialogEndedBeforeItsTurnConsumesNothing() throws {
        let h = Harness()
        h.dir.makeFile("a.txt")
        let presenter = script(h, [.delay(milliseconds: 100), .dismiss, .choose(["a.txt"])])
        let first = try h.importer(presenter: presenter)
        let waiting = try h.importer(presenter: presenter)
        _ = try h.engine.cancel(client: h.client, id: waiting)
        let third = try h.importer(presenter: presenter)
        h.scheduler.advance(milliseconds: 100)
        #expect(h.events.events(first).last == .cancelled(first, .importer, reason: .user))
        guard case .completed? = h.events.events(third).last else {
            Issue.record("the third dialog should get the choose step: \(h.events.events(third))")
            return
        }
    }

    @Test func aTimeoutDuringADelayEndsTheDialogAndTheScriptMovesOn() throws {
        let h = Harness()
        let presenter = script(h, [.delay(milliseconds: 500), .dismiss, .dismiss])
        let first = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 200), presenter: presenter)
        h.scheduler.advance(milliseconds: 600)
        #expect(h.events.events(first) == ending(first, .cancelled(first, .importer, reason: .timeout)))
        #expect(presenter.remainingSteps == 1)
    }
}
