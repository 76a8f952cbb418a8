import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// Progress is reported for exports over 1 MiB, no more often than every 100 ms (measured on
/// an injected clock, so the test counts calls instead of timing them), with exactly one final
/// report once every byte is written.
struct ProgressTests {
    /// A clock that moves `step` nanoseconds each time the writer reads it.
    final class SteppingClock: Sendable {
        private let now = Locked<UInt64>(0)
        private let step: UInt64
        init(step: UInt64) { self.step = step }
        func tick() -> UInt64 { now.withValue { $0 += step; return $0 } }
        var current: UInt64 { now.withValue { $0 } }
    }

    final class Recorder: Sendable {
        let calls = Locked<[(progress: ExportProgress, at: UInt64)]>([])
        func record(_ progress: ExportProgress, at time: UInt64) { calls.withValue { $0.append((progress, time)) } }
        var all: [(progress: ExportProgress, at: UInt64)] { calls.withValue { $0 } }
    }

    @Test func reportsAreAtLeastAnIntervalApartAndTheEndIsReportedOnce() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let clock = SteppingClock(step: 30_000_000)  // Each 64 KiB chunk "takes" 30 ms.
        var configuration = WriterConfiguration(chunkSize: 64 << 10)
        configuration.clock = { clock.tick() }
        let recorder = Recorder()
        let total = 4 << 20
        try AtomicWriter.write(
            [ExportItem(destination: scratch.path("out"), source: .bytes(patternBytes(total)), overwrite: false)],
            progress: { recorder.record($0, at: clock.current) },
            cancellation: nil, configuration: configuration
        )
        let calls = recorder.all
        // 64 chunks; the first reports at once, then one report per 4 chunks (120 ms ≥ 100 ms)
        // while bytes remain: chunks 1, 5, 9, …, 61 → 16 reports, plus the final one.
        #expect(calls.count == 17)
        #expect(calls.last?.progress == ExportProgress(bytesWritten: Int64(total), totalBytes: Int64(total)))
        #expect(calls.filter { $0.progress.bytesWritten == Int64(total) }.count == 1)
        let intermediate = calls.dropLast()
        for (earlier, later) in zip(intermediate, intermediate.dropFirst()) {
            #expect(later.at - earlier.at >= 100_000_000)
            #expect(later.progress.bytesWritten > earlier.progress.bytesWritten)
        }
        #expect(calls.allSatisfy { $0.progress.totalBytes == Int64(total) })
    }

    @Test func exportsOfAtMostOneMebibyteReportNothing() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let recorder = Recorder()
        writeFile(scratch.path("half"), patternBytes(1 << 19))
        try AtomicWriter.write(
            [
                ExportItem(destination: scratch.path("a"), source: .bytes(patternBytes(1 << 19)), overwrite: false),
                ExportItem(destination: scratch.path("b"), source: .file(path: scratch.path("half")), overwrite: false),
            ],
            progress: { recorder.record($0, at: 0) }
        )
        #expect(recorder.all.isEmpty)
    }

    @Test func progressCountsTheBytesOfEveryItem() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let recorder = Recorder()
        writeFile(scratch.path("source"), patternBytes(3 << 20))
        try AtomicWriter.write(
            [
                ExportItem(destination: scratch.path("a"), source: .bytes(patternBytes(1 << 20)), overwrite: false),
                ExportItem(destination: scratch.path("b"), source: .file(path: scratch.path("source")), overwrite: false),
            ],
            progress: { recorder.record($0, at: 0) }
        )
        let total = Int64(4 << 20)
        #expect(recorder.all.first.map { $0.progress.bytesWritten > 0 && $0.progress.bytesWritten <= total } == true)
        #expect(recorder.all.last?.progress == ExportProgress(bytesWritten: total, totalBytes: total))
    }

    @Test func reporterWithoutCallbackOrUnderThresholdStaysSilent() {
        var configuration = WriterConfiguration()
        configuration.clock = { 0 }
        var quiet = ProgressReporter(total: 1 << 20, callback: { _ in Issue.record("reported a 1 MiB export") }, configuration: configuration)
        quiet.add(1 << 19)
        quiet.add(1 << 19)
        quiet.finish()
        #expect(quiet.written == 1 << 20)
    }
}
