#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// Where the session bus is, decided the way sd-bus and libdbus decide it, but without
/// autolaunching one: `DBUS_SESSION_BUS_ADDRESS`, else the systemd user bus socket
/// `$XDG_RUNTIME_DIR/bus` when it exists. With neither, there is no session bus, and the reason
/// says so in words a user can act on.
public enum BusAddress {
    /// The session bus address for `environment` (variable name → value), or why there is none.
    public static func session(environment: [String: String]) -> Result<String, BusError> {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            return .success(address)
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let socketPath = runtime.hasSuffix("/") ? runtime + "bus" : runtime + "/bus"
            if let path = FilePath(socketPath), let status = try? FileStatus.of(path), status.mode & UInt32(S_IFMT) == UInt32(S_IFSOCK) {
                return .success("unix:path=" + escape(socketPath))
            }
            return .failure(BusError(
                name: BusError.Names.failed,
                message: "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and \(socketPath) does not exist"))
        }
        return .failure(BusError(
            name: BusError.Names.failed,
            message: "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are not set"))
    }

    /// This process's environment as a dictionary (names and values decoded as UTF-8; invalid
    /// bytes only matter for paths, and the bus address is not one).
    public static func processEnvironment() -> [String: String] { ProcessControl.environmentVariables() }

    /// D-Bus address escaping: everything but `[-0-9A-Za-z_/.\]` as `%XX`.
    public static func escape(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789abcdef".utf8)
                out += "%" + String(UnicodeScalar(hex[Int(byte >> 4)])) + String(UnicodeScalar(hex[Int(byte & 15)]))
            }
        }
        return out
    }
}
