import Glibc

/// systemd's socket activation, the `sd_listen_fds(3)` contract without libsystemd: a service
/// started for a socket unit finds the sockets already open from descriptor 3 on, with
/// `LISTEN_FDS` saying how many and `LISTEN_PID` naming the process they are for (so that a
/// child that inherited the environment does not take them too).
public enum SocketActivation {
    /// The first descriptor passed (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// What the environment says was passed to this process.
    public enum Passed: Equatable, Sendable {
        /// No `LISTEN_FDS`, or it is meant for another process.
        case none
        /// `LISTEN_FDS` descriptors, from 3 on.
        case descriptors(Int32)
        /// The variables are set for this process but make no sense; the message says why.
        case invalid(String)
    }

    /// Reads `LISTEN_PID` and `LISTEN_FDS` without taking anything.
    public static func passed() -> Passed {
        guard let pidText = text("LISTEN_PID") else { return .none }
        guard let pid = Int32(pidText), pid > 0 else { return .invalid("LISTEN_PID is not a process id: \(pidText)") }
        guard pid == getpid() else { return .none }
        guard let countText = text("LISTEN_FDS"), let count = Int32(countText) else {
            return .invalid("LISTEN_FDS is missing or not a number")
        }
        guard count >= 0, count <= 1024 else { return .invalid("LISTEN_FDS is out of range: \(count)") }
        return count == 0 ? .none : .descriptors(count)
    }

    /// Takes the passed descriptors (made close-on-exec) and removes `LISTEN_PID`,
    /// `LISTEN_FDS` and `LISTEN_FDNAMES` from the environment, as `sd_listen_fds(1)` does.
    public static func takeDescriptors() -> [FileDescriptor] {
        guard case .descriptors(let count) = passed() else { return [] }
        var taken: [FileDescriptor] = []
        for raw in firstDescriptor..<(firstDescriptor + count) {
            _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
            taken.append(FileDescriptor(taking: raw))
        }
        ProcessControl.removeEnvironment(["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"])
        return taken
    }

    private static func text(_ name: String) -> String? {
        ProcessControl.environment(name).map { String(decoding: $0, as: UTF8.self) }
    }
}
