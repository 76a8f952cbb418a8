import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// `cancel()` from another thread stops the export at the next chunk, undoes everything and
/// throws `.cancelled`.
struct CancellationTests {
    @Test func cancelFromAnotherThreadMidWriteRollsBack() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.bin")
        writeFile(destination, "old")
        writeFile(scratch.path("source"), patternBytes(24 << 20))
        let cancellation = ExportCancellation()
        let seen = Locked<[Int64]>([])
        #expect(throws: ExportError.cancelled) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .file(path: scratch.path("source")), overwrite: true)],
                progress: { progress in
                    let first = seen.withValue { $0.append(progress.bytesWritten); return $0.count == 1 }
                    // At the first report (after the first chunk), another thread cancels;
                    // the writer waits until it has, so the cancel lands mid-write.
                    if first { onAnotherThread { cancellation.cancel() } }
                },
                cancellation: cancellation
            )
        }
        #expect(seen.withValue { $0 } == [4 << 20])
        #expect(readText(destination) == "old")
        #expect(scratch.names() == ["doc.bin", "source"])
    }

    @Test func cancelWhileAFIFOSourceWaitsForAWriterThatNeverComesRollsBack() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.bin")
        writeFile(destination, "old")
        let fifo = scratch.fifo("source")
        let cancellation = ExportCancellation()
        startThread {
            usleep(200_000)
            cancellation.cancel()
        }
        #expect(throws: ExportError.cancelled) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .file(path: fifo), overwrite: true)],
                cancellation: cancellation
            )
        }
        #expect(readText(destination) == "old")
        #expect(scratch.names() == ["doc.bin", "source"])
    }

    @Test func aFIFOSourceIsReadToItsEndWhenItsWriterComesLater() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let fifo = scratch.fifo("source")
        let bytes = patternBytes(3 << 20 | 5)
        startThread {
            usleep(200_000)
            writeFile(fifo, bytes)  // Opens the FIFO for writing, writes everything, closes it.
        }
        try AtomicWriter.write([ExportItem(destination: scratch.path("copy"), source: .file(path: fifo), overwrite: false)])
        #expect(readFile(scratch.path("copy")) == bytes)
    }

    @Test func cancelAfterTheLastByteStillStopsBeforeAnyRename() {
        let scratch = ScratchDirectory("wharf-fw")
        let first = scratch.path("a")
        writeFile(first, "old a")
        let cancellation = ExportCancellation()
        #expect(throws: ExportError.cancelled) {
            try AtomicWriter.write(
                [
                    ExportItem(destination: first, source: .bytes(Array("new a".utf8)), overwrite: true),
                    ExportItem(destination: scratch.path("b"), source: .bytes(patternBytes(2 << 20)), overwrite: false),
                ],
                progress: { progress in
                    if progress.bytesWritten == progress.totalBytes { onAnotherThread { cancellation.cancel() } }
                },
                cancellation: cancellation
            )
        }
        #expect(readText(first) == "old a")
        #expect(scratch.names() == ["a"])
    }

    @Test func cancelledBeforeStartingWritesNothing() {
        let scratch = ScratchDirectory("wharf-fw")
        let cancellation = ExportCancellation()
        cancellation.cancel()
        #expect(throws: ExportError.cancelled) {
            try AtomicWriter.write(
                [ExportItem(destination: scratch.path("a"), source: .bytes([1]), overwrite: false)],
                cancellation: cancellation
            )
        }
        #expect(scratch.names().isEmpty)
    }
}

/// Runs `body` on a new thread and waits for it to finish.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { argument in
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(created == 0, "pthread_create: \(created)")
    pthread_join(thread, nil)
}
