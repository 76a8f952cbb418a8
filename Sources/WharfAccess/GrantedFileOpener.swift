import Glibc
import WharfSystem

/// Opens granted files without ever being led elsewhere.
///
/// A file granted by itself is opened at its path with `O_NOFOLLOW` and then judged by the
/// identity of what was actually opened: whatever the path went through, only the granted inode
/// passes. A file inside a granted directory is reached by walking down from that directory one
/// component at a time, each step refusing symbolic links, after checking that the directory
/// opened is the one granted — so neither a link swapped in below it nor a race between checking
/// and opening can lead out of it.
enum GrantedFileOpener {
    /// Opens `target`, beneath `anchor` when given (which must be the directory `granted`).
    static func open(target: FilePath, anchor: FilePath?, granted: Fingerprint?,
                     mode: AccessFileHandle.Mode) throws(AccessError) -> AccessFileHandle {
        do {
            guard let anchor else { return try AccessFileHandle(path: target, mode: mode) }
            guard let granted, anchor.contains(target), anchor != target else {
                throw AccessError.accessDenied("that file is not inside the granted folder")
            }
            var current = try AccessFileHandle(path: anchor, mode: .directory)
            guard try Fingerprint.of(current).matches(granted) else {
                throw AccessError.accessDenied("the granted folder is no longer the one that was granted")
            }
            let below = anchor == .root ? target.bytes.dropFirst() : target.bytes.dropFirst(anchor.bytes.count + 1)
            let components = below.split(separator: UInt8(ascii: "/")).map { Array($0) }
            for (index, name) in components.enumerated() {
                let last = index == components.count - 1
                current = try AccessFileHandle(in: current, name: name, mode: last ? mode : .directory)
            }
            return current
        } catch let error as AccessError {
            throw error
        } catch let error as SystemError {
            throw denial(for: error)
        } catch {
            throw .store(StoreFailure(kind: .other, message: "\(error)"))
        }
    }

    /// What was opened, as it is now: the handle, its status and its fingerprint (which every
    /// caller checks against what the grant or the lease recorded).
    struct Opened {
        var handle: AccessFileHandle
        var status: FileStatus
        var fingerprint: Fingerprint
    }

    /// ``open(target:anchor:granted:mode:)``, then the status and fingerprint of what it opened.
    static func openAndDescribe(target: FilePath, anchor: FilePath?, granted: Fingerprint?,
                                mode: AccessFileHandle.Mode) throws(AccessError) -> Opened {
        let handle = try open(target: target, anchor: anchor, granted: granted, mode: mode)
        do {
            return Opened(handle: handle, status: try handle.status(), fingerprint: try Fingerprint.of(handle))
        } catch {
            throw .io(error)
        }
    }

    /// Failures that mean "what is there now is not what was granted" become denials without a
    /// path; anything else is an I/O error about the client's own file.
    static func denial(for error: SystemError) -> AccessError {
        switch error.code {
        case ELOOP, ENOTDIR:
            .accessDenied("a symbolic link or another kind of file now stands where the granted file was")
        case ENOENT:
            .accessDenied("the granted file no longer exists there")
        case EACCES, EPERM:
            .accessDenied("the file system does not allow this operation on the granted file")
        default:
            .io(error)
        }
    }
}
