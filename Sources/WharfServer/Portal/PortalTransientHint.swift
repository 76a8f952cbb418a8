import Glibc
import WharfSystem

/// Makes the terminal window a portal dialog runs in transient for the app's window (an
/// `x11:XID` `parent_window`), so that the window manager keeps it above the app and with it.
///
/// No terminal Wharf opens has an option for this, but xterm tells the program it runs its
/// window (`$WINDOWID`), and the hint is one property on that window: `WM_TRANSIENT_FOR`, of
/// type `WINDOW`. It is written here in the X protocol itself, over the display's socket, with
/// the display's `MIT-MAGIC-COOKIE-1` when `$XAUTHORITY` (or `~/.Xauthority`) holds one: four
/// requests' worth of X11 do not call for a library. The window is already mapped by then;
/// window managers follow the property as it changes.
enum PortalTransientHint {
    /// Predefined atoms (X11 protocol, appendix B).
    static let wmTransientFor: UInt32 = 68
    static let windowType: UInt32 = 33

    /// Sets the hint on `window` (the terminal's) for `parent`. Nil when it was set, else why
    /// not.
    static func set(window: UInt32, parent: UInt32, environment: [String: String]) -> String? {
        guard let display = environment["DISPLAY"], let (socketPath, number) = localDisplay(display) else {
            return "DISPLAY is not a local X display"
        }
        let socket: FileDescriptor
        do {
            socket = try UnixSocket.connect(to: socketPath)
        } catch {
            return "cannot connect to \(socketPath): \(error)"
        }
        defer { socket.close() }
        let cookie = Self.cookie(display: number, environment: environment)
        // The dialog waits for this: an X server that does not answer within a second is given up.
        let deadline = Deadline(secondsFromNow: 1)
        func receive(_ count: Int) throws(SystemError) -> [UInt8]? {
            var bytes: [UInt8] = []
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 1)
            defer { chunk.deallocate() }
            while bytes.count < count {
                let left = deadline.millisecondsLeft
                guard left > 0, try Poller.wait([Poller.Watch(socket)], timeoutMilliseconds: left).first?.isEmpty == false else {
                    return nil
                }
                let read = try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[..<(count - bytes.count)]))
                if read == 0 { return nil }
                bytes += chunk[..<read]
            }
            return bytes
        }
        do {
            try socket.write(all: setupRequest(cookie: cookie))
            guard let head = try receive(8) else { return "the X server did not answer" }
            guard let rest = try receive(Int(UInt16(head[6]) | UInt16(head[7]) << 8) * 4) else {
                return "the X server did not answer"
            }
            guard head[0] == 1 else {
                let reason = String(decoding: rest.prefix(Int(head[1])), as: UTF8.self)
                return "the X server refused the connection: \(reason)"
            }
            // ChangeProperty, then GetInputFocus: its reply comes after the error, if any.
            try socket.write(all: changeProperty(window: window, parent: parent) + [43, 0, 1, 0])
            guard let reply = try receive(32) else { return "the X server did not answer" }
            if reply[0] == 0 { return "the X server refused the property (error \(reply[1]))" }
            return nil
        } catch {
            return "the X connection failed: \(error)"
        }
    }

    /// `:N`, `:N.S` or `unix:N`: the socket in /tmp/.X11-unix and the display number.
    static func localDisplay(_ display: String) -> (FilePath, String)? {
        var text = Substring(display)
        if text.hasPrefix("unix:") { text = text.dropFirst(4) }
        guard text.first == ":" else { return nil }
        let number = text.dropFirst().prefix { $0 != "." }
        guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
              let path = FilePath("/tmp/.X11-unix/X\(number)")
        else { return nil }
        return (path, String(number))
    }

    /// The connection setup (little-endian, protocol 11.0), with the cookie when there is one.
    static func setupRequest(cookie: [UInt8]?) -> [UInt8] {
        let name = cookie == nil ? [] : Array("MIT-MAGIC-COOKIE-1".utf8)
        let data = cookie ?? []
        var bytes: [UInt8] = [0x6C, 0, 11, 0, 0, 0]
        bytes += le16(name.count) + le16(data.count) + [0, 0]
        bytes += padded(name) + padded(data)
        return bytes
    }

    /// ChangeProperty (opcode 18), Replace: `WM_TRANSIENT_FOR` of type `WINDOW`, one 32-bit item.
    static func changeProperty(window: UInt32, parent: UInt32) -> [UInt8] {
        [18, 0] + le16(7) + le32(window) + le32(wmTransientFor) + le32(windowType) + [32, 0, 0, 0] + le32(1) + le32(parent)
    }

    /// The display's `MIT-MAGIC-COOKIE-1` from the authority file, if it holds one for a local
    /// connection (family local or wild) to display `number`.
    static func cookie(display number: String, environment: [String: String]) -> [UInt8]? {
        let file = environment["XAUTHORITY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.Xauthority" }
        guard let file, let path = FilePath(file), let descriptor = try? FileDescriptor.open(path, O_RDONLY | O_CLOEXEC) else {
            return nil
        }
        defer { descriptor.close() }
        guard let bytes = try? descriptor.readToEnd(limit: 1 << 20) else { return nil }
        return cookie(in: bytes, display: number)
    }

    /// Reads Xauthority entries: family (2 bytes), then address, display number, name and data,
    /// each a big-endian 2-byte length and its bytes.
    static func cookie(in bytes: [UInt8], display number: String) -> [UInt8]? {
        var offset = 0
        func field() -> [UInt8]? {
            guard offset + 2 <= bytes.count else { return nil }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard offset + 2 + length <= bytes.count else { return nil }
            defer { offset += 2 + length }
            return Array(bytes[(offset + 2)..<(offset + 2 + length)])
        }
        while offset + 2 <= bytes.count {
            let family = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard field() != nil, let display = field(), let name = field(), let data = field() else { return nil }
            let local = family == 256 || family == 65535
            if local && (display.isEmpty || display == Array(number.utf8)) && name == Array("MIT-MAGIC-COOKIE-1".utf8) {
                return data
            }
        }
        return nil
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
    private static func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }
}
