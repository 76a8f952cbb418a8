import Glibc
import WharfDBus
import WharfSystem
import WharfTestSupport

/// A `dbus-daemon` of a test's own: a session-type bus on a socket in a fresh directory, that
/// activates nothing (no service directories, so a call to an absent name fails at once
/// instead of starting the real portal) and lets anyone own any name.
public final class PrivateBus: Sendable {
    public let address: String
    public var directory: String { scratch.path.description }
    private let scratch = ScratchDirectory("wharf-bus")
    private let daemon: ChildProcess

    public init() throws {
        let config = scratch.write("bus.conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(scratch.path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """, mode: 0o600)
        daemon = try ChildProcess(path: "dbus-daemon", arguments: ["--config-file=\(config)", "--nofork", "--print-address=1"],
                                  searchPath: true)
        guard let line = daemon.waitForLine(startingWith: "", timeout: 30), !line.isEmpty else {
            daemon.kill()
            throw SystemError(code: ENOENT, operation: "dbus-daemon printed no address: \(daemon.readErrors())")
        }
        address = line
    }

    deinit { stop() }

    /// Ends the daemon: every connection to it is lost.
    public func stop() {
        daemon.kill()
        daemon.wait()
    }

    /// A connection to this bus (waits; fails the test run loudly if the bus is gone).
    public func connect(timeoutMs: Int = 5000) throws -> BusConnection {
        try BusConnection.openAndWait(address: address, timeoutMs: timeoutMs).get()
    }
}
