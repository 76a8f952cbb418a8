#if canImport(Glibc)
import Glibc
#endif
import WharfSystem

/// `dbus-monitor --profile` on the session bus, watching FileChooser.OpenFile calls: each line
/// carries the time (gettimeofday, µs) at which the monitor received the message from the bus.
final class BusMonitor: @unchecked Sendable {
    struct Sighting { var micros: Int64; var member: String; var sender: String }

    private let pid: pid_t
    private let lock = ConditionLock()
    private var seen: [Sighting] = []

    init() throws {
        let output = try makePipe()
        pid = try Spawn.start("dbus-monitor", ["--session", "--profile",
                                               "type='method_call',interface='org.freedesktop.portal.FileChooser',member='OpenFile'",
                                               "type='method_call',interface='org.wharf.Rig',member='MonitorReady'"],
                              searchPath: true) { actions in
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        }
        close(output.write)
        let reader = output.read
        startThread { [self] in
            var line: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                for byte in buffer[..<count] {
                    if byte == 10 { take(String(decoding: line, as: UTF8.self)); line.removeAll() } else { line.append(byte) }
                }
            }
            close(reader)
        }
    }

    /// `mc <sec>.<usec> <serial> <sender> <destination> <path> <interface> <member>`
    private func take(_ line: String) {
        let fields = line.split(separator: "\t").map(String.init)
        guard fields.count >= 8, fields[0] == "mc" else { return }
        let parts = fields[1].split(separator: ".")
        guard parts.count == 2, let seconds = Int64(parts[0]), let micros = Int64(parts[1]) else { return }
        lock.withLock {
            seen.append(Sighting(micros: seconds * 1_000_000 + micros, member: fields[7], sender: fields[3]))
            lock.broadcast()
        }
    }

    var count: Int { lock.withLock { seen.count } }

    /// Waits for the `index`th sighting (0-based).
    func sighting(_ index: Int, seconds: Double = 20) -> Sighting? {
        let deadline = Deadline(secondsFromNow: seconds)
        return lock.withLock {
            while seen.count <= index && !deadline.hasPassed { lock.wait(until: deadline) }
            return seen.count > index ? seen[index] : nil
        }
    }

    func stop() {
        kill(pid, SIGKILL)
        _ = Spawn.wait(pid)
    }
}

enum RealClock {
    static func micros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
