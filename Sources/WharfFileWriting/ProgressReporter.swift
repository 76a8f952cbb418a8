import Glibc

/// Turns a stream of "n more bytes are written" into calls of the caller's progress callback,
/// at most one per `interval` (the first chunk reports at once, so a slow export shows life
/// early), plus exactly one final call when every byte is on disk, before anything is renamed
/// into place. Small exports (not over the threshold) report nothing.
struct ProgressReporter {
    private let callback: (@Sendable (ExportProgress) -> Void)?
    private let total: Int64
    private let interval: UInt64
    private let clock: @Sendable () -> UInt64
    private(set) var written: Int64 = 0
    private var lastReport: UInt64?

    init(total: Int64, callback: (@Sendable (ExportProgress) -> Void)?, configuration: WriterConfiguration) {
        self.total = total
        self.callback = total > configuration.progressThreshold ? callback : nil
        interval = configuration.progressInterval
        clock = configuration.clock
    }

    /// Records `count` more bytes and reports if the interval has passed since the last report.
    /// Once `total` is reached only `finish` reports, so the end is told exactly once.
    mutating func add(_ count: Int) {
        written += Int64(count)
        guard let callback, written < total else { return }
        let now = clock()
        if let lastReport, now &- lastReport < interval { return }
        lastReport = now
        callback(ExportProgress(bytesWritten: written, totalBytes: total))
    }

    /// The final report. A source that grew while it was copied (or a FIFO, whose size is not
    /// known in advance) can make `written` exceed the planned total; the total follows it.
    func finish() {
        callback?(ExportProgress(bytesWritten: written, totalBytes: max(total, written)))
    }
}
