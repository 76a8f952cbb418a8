import Glibc
import WharfSystem

/// Copies a file's bytes into another, in chunks, looking at the cancellation flag between
/// them: what an export does with a file source and a move across file systems with every file.
struct ContentCopier {
    /// Why a copy stopped.
    enum Failure: Error {
        case cancelled
        /// Reading the source or writing the target failed (the error names which).
        case failed(SystemError)
    }

    /// The ways bytes can move from a source file to a temporary file, fastest first.
    private enum CopyMethod {
        /// `copy_file_range(2)`: in the kernel, and a reflink on file systems that can.
        case copyFileRange
        /// `sendfile(2)`: in the kernel, through the page cache.
        case sendFile
        /// `read`/`write` through a bounded buffer: works on anything, and names the side
        /// that failed.
        case readWrite
    }

    let configuration: WriterConfiguration
    let cancellation: ExportCancellation?

    /// Copies `source` to its end. A kernel copy that fails for any reason hands over to the
    /// read/write loop from where it stopped (both calls advance the file offsets): either the
    /// file system merely lacked support, or the loop meets the same error and can say whether
    /// reading the source or writing the destination failed. `afterChunk` is called after each
    /// chunk written.
    func copy(
        _ source: FileDescriptor, into target: FileDescriptor, kernelCopy: Bool, waits: Bool,
        progress: inout ProgressReporter, afterChunk: (() -> Void)? = nil
    ) throws(Failure) {
        var method = kernelCopy ? CopyMethod.copyFileRange : .readWrite
        var writeback = WritebackPacer(descriptor: target, enabled: configuration.earlyWriteback, step: configuration.chunkSize)
        var buffer: UnsafeMutableRawBufferPointer?
        defer { buffer?.deallocate() }
        while true {
            if cancellation?.isCancelled == true { throw .cancelled }
            switch method {
            case .copyFileRange, .sendFile:
                let result = method == .copyFileRange
                    ? Syscalls.copyFileRange(from: source, to: target, count: configuration.chunkSize)
                    : Syscalls.sendFile(from: source, to: target, count: configuration.chunkSize)
                switch result {
                case .copied(let count) where count > 0:
                    progress.add(count)
                    writeback.wrote(count)
                    afterChunk?()
                case .copied:
                    // The kernel saw the end; let a plain read confirm it (a file whose size
                    // changed, or a file system that under-reports, is then still copied whole).
                    method = .readWrite
                case .failed(let code) where method == .copyFileRange && [ENOSYS, EXDEV, EINVAL, EOPNOTSUPP].contains(code):
                    method = .sendFile
                case .failed:
                    method = .readWrite
                }
            case .readWrite:
                let chunk: UnsafeMutableRawBufferPointer
                if let buffer { chunk = buffer } else {
                    chunk = .allocate(byteCount: configuration.bufferSize, alignment: 4096)
                    buffer = chunk
                }
                let count: Int
                do throws(SystemError) {
                    if waits {
                        // A writer may take its time, or never come: wait a slice, then look
                        // at the cancellation flag again (a cancel, or the client's session
                        // ending, must end the export).
                        guard try Poller.wait([Poller.Watch(source)], timeoutMilliseconds: 100) != [[]],
                              let available = try source.readAvailable(into: chunk)
                        else { continue }
                        count = available
                    } else {
                        count = try source.read(into: chunk)
                    }
                } catch {
                    throw .failed(error)
                }
                if count == 0 { return }
                do { try target.write(all: UnsafeRawBufferPointer(rebasing: chunk[..<count])) }
                catch { throw .failed(error) }
                progress.add(count)
                writeback.wrote(count)
                afterChunk?()
            }
        }
    }
}
