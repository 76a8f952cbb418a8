#if canImport(Glibc)
import Glibc
#endif
import WharfSystem

/// A `dbus-daemon` of a test's own: a session-type bus on a socket in a fresh directory, that
/// activates nothing (no service directories, so a call to an absent name fails at once
/// instead of starting the real portal) and lets anyone own any name.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    public let directory: String
    private let pid: pid_t
    private var stopped = false

    public init() throws {
        var template = Array("/tmp/wharf-bus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError.current("mkdtemp") }
        directory = String(cString: made)
        let config = directory + "/bus.conf"
        let text = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try Self.write(text, to: config)
        let output = try makePipe()
        pid = try Spawn.start("dbus-daemon", ["--config-file=" + config, "--nofork", "--print-address=1"],
                              searchPath: true) { actions in
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        }
        close(output.write)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(output.read, &byte, 1) == 1 && byte != UInt8(ascii: "\n") { line.append(byte) }
        close(output.read)
        address = String(decoding: line, as: UTF8.self)
        guard !address.isEmpty else {
            _ = Spawn.wait(pid)
            throw SystemError(code: ENOENT, operation: "dbus-daemon printed no address")
        }
    }

    deinit { stop() }

    public func stop() {
        guard !stopped else { return }
        stopped = true
        // SIGKILL: a child started from a thread that blocks SIGTERM (the test runner's do)
        // inherits that mask through Spawn.start and would never see it.
        kill(pid, SIGKILL)
        _ = Spawn.wait(pid)
        _ = unlink(directory + "/bus.conf")
        // The socket file is removed by dbus-daemon; the directory may keep it if it was killed.
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { _ = unlink(directory + "/" + name) }
            }
            closedir(dir)
        }
        _ = rmdir(directory)
    }

    /// A connection to this bus (waits; fails the test run loudly if the bus is gone).
    public func connect(timeoutMs: Int = 5000) throws -> BusConnection {
        try BusConnection.openAndWait(address: address, timeoutMs: timeoutMs).get()
    }

    static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError.current("open", path: path) }
        defer { close(fd) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw SystemError.current("write", path: path) }
            bytes = bytes.dropFirst(written)
        }
    }
}

import WharfDBus
