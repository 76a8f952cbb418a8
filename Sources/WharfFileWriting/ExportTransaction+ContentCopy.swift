import Glibc
import WharfSystem

extension ExportTransaction {
    /// Fills the temporary file, in chunks, looking at the cancellation flag between them.
    func copyContents(of entry: ExportEntry, into target: FileDescriptor) throws(ExportError) {
        entry.directory.changed = true
        try reserveSpace(for: entry, in: target)
        switch entry.source {
        case .none:
            return
        case .bytes(let bytes):
            try writeBytes(bytes, into: target, for: entry.item.destination)
        case .file(let source, let path, let kernelCopy, let waits):
            try copyFile(source, path: path, into: target, kernelCopy: kernelCopy, waits: waits, for: entry.item.destination)
        }
    }

    /// Reserves the blocks the file will need before writing it, where that is cheap and
    /// helps: the file system allocates one run of extents up front instead of one per chunk
    /// during writeback, which makes large exports finish sooner, and a
    /// file that cannot fit fails at once instead of after writing most of it. Skipped on
    /// memory-backed file systems, where reserving means zeroing every page first.
    private func reserveSpace(for entry: ExportEntry, in target: FileDescriptor) throws(ExportError) {
        guard configuration.reserveSpace, entry.expectedSize > 0 else { return }
        guard configuration.reserveSpaceInMemory || !entry.directory.isMemoryBacked else { return }
        guard let code = Syscalls.reserveSpace(target, count: entry.expectedSize) else { return }
        // Only a definite "it will not fit" is an answer; anything else (no support) is not.
        if [ENOSPC, EDQUOT, EFBIG].contains(code) {
            throw .failed(
                path: entry.item.destination,
                cause: SystemError(code: code, operation: "reserve space for", path: entry.item.destination)
            )
        }
    }

    private func writeBytes(_ bytes: [UInt8], into target: FileDescriptor, for destination: FilePath) throws(ExportError) {
        var writeback = WritebackPacer(descriptor: target, enabled: configuration.earlyWriteback, step: configuration.chunkSize)
        let failure: ExportError? = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                if cancellation?.isCancelled == true { return .cancelled }
                let count = min(configuration.chunkSize, buffer.count - offset)
                do throws(SystemError) {
                    try target.write(all: UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count]))
                } catch {
                    return .failed(path: destination, cause: error)
                }
                offset += count
                progress.add(count)
                writeback.wrote(count)
            }
            return nil
        }
        if let failure { throw failure }
    }

    private func copyFile(
        _ source: FileDescriptor, path: FilePath, into target: FileDescriptor, kernelCopy: Bool, waits: Bool,
        for destination: FilePath
    ) throws(ExportError) {
        let copier = ContentCopier(configuration: configuration, cancellation: cancellation)
        do throws(ContentCopier.Failure) {
            try copier.copy(source, into: target, kernelCopy: kernelCopy, waits: waits, progress: &progress)
        } catch {
            switch error {
            case .cancelled: throw .cancelled
            case .failed(let cause): throw .failed(path: destination, cause: cause)
            }
        }
    }
}

/// Starts writing a file back to disk while it is still being filled, one chunk behind the
/// writer, so that the closing `fsync` waits for the last chunk instead of the whole file:
/// copying (CPU, page cache) and writing back (disk) overlap. Without it, a 1 GiB export
/// would copy at page-cache speed and then sit in `fsync` for the entire disk write.
struct WritebackPacer {
    let descriptor: FileDescriptor
    let enabled: Bool
    let step: Int
    private var written: Int64 = 0
    private var started: Int64 = 0

    init(descriptor: FileDescriptor, enabled: Bool, step: Int) {
        self.descriptor = descriptor
        self.enabled = enabled
        self.step = step
    }

    mutating func wrote(_ count: Int) {
        written += Int64(count)
        guard enabled, written - started >= Int64(step) else { return }
        Syscalls.startWriteback(descriptor, offset: started, count: written - started)
        started = written
    }
}
