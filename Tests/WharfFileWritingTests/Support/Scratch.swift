import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

extension ScratchDirectory {
    /// The names in `directory` (the scratch directory itself by default), without `.` and `..`.
    func names(in directory: FilePath? = nil) -> Set<String> {
        Set(directoryNames(directory ?? path).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Names that look like Wharf temporary files.
    func temporaries(in directory: FilePath? = nil) -> Set<String> {
        names(in: directory).filter { $0.hasPrefix(AtomicWriter.temporaryPrefix) }
    }
}

/// What `lstat` says, or nil if nothing is at `path`.
func linkStatus(_ path: FilePath) -> FileStatus? { try? FileStatus.ofLink(path) }

/// The write probe (Tests/Tools/WriteProbe), built next to the test bundle.
enum Probe {
    static var path: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = FilePath(bytes: buffer[..<max(count, 0)].map { UInt8(bitPattern: $0) }) ?? .root
        return executable.directory.appending("wharf-write-probe").description
    }

    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        WharfTestSupport.run(path, arguments)
    }
}
