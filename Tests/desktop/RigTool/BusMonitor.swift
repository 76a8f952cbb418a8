import WharfSystem
import WharfTestSupport

/// `dbus-monitor --profile` on the session bus, watching FileChooser.OpenFile calls: each line
/// carries the time (gettimeofday, µs) at which the monitor received the message from the bus.
///
/// `@unchecked Sendable`: `seen` is only touched with `lock` held.
final class BusMonitor: @unchecked Sendable {
    struct Sighting { var micros: Int64; var member: String; var sender: String }

    private let monitor: ChildProcess
    private let lock = ConditionLock()
    private var seen: [Sighting] = []

    init() throws {
        monitor = try ChildProcess(path: "dbus-monitor", arguments: [
            "--session", "--profile",
            "type='method_call',interface='org.freedesktop.portal.FileChooser',member='OpenFile'",
            "type='method_call',interface='org.wharf.Rig',member='MonitorReady'",
        ], searchPath: true)
        monitor.closeStdin()
        let monitor = self.monitor
        startThread { [self] in
            // Until dbus-monitor ends (stop): a day is no limit for a measurement.
            while let line = monitor.waitForLine(startingWith: "mc\t", timeout: 86_400) { take(line) }
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
        monitor.kill()
        monitor.wait()
    }
}

/// Wall-clock microseconds, the clock dbus-monitor stamps its lines with.
enum RealClock {
    static func micros() -> Int64 { Int64((ProcessControl.wallClockSeconds() * 1_000_000).rounded()) }
}
