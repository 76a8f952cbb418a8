import Glibc
import WharfSystem

/// Another process holding an SQLite database's write lock, as `wharf access revoke` or a
/// second Wharf would: `wharf-sqlite-lock` (built beside the tests, from Tests/Tools/SQLiteLock)
/// takes `BEGIN EXCLUSIVE`, runs `statements` inside that transaction (uncommitted, so nobody
/// else sees them yet), holds it for `seconds`, then commits. The initializer returns once the
/// lock is held; the process is killed when the value goes away.
public final class DatabaseLock {
    public let holder: ChildProcess

    public init(_ database: FilePath, seconds: Double, running statements: [String] = []) throws {
        holder = try ChildProcess(path: builtExecutablePath("wharf-sqlite-lock"),
                                  arguments: [database.description, String(seconds)] + statements)
        guard holder.waitForLine(startingWith: "locked") != nil else {
            holder.kill()
            throw SystemError(code: EIO, operation: "lock the database from wharf-sqlite-lock (\(holder.readErrors()))", path: database)
        }
    }

    deinit { holder.kill() }
}

/// A product built next to the running test bundle (`.build/<configuration>/NAME`).
public func builtExecutablePath(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let executable = FilePath(bytes: buffer[..<max(count, 0)].map { UInt8(bitPattern: $0) }) ?? .root
    return executable.directory.appending(name).description
}
