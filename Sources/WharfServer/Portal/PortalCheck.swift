import Glibc
import WharfDBus
import WharfSystem

/// `wharf portal --check`: whether the running xdg-desktop-portal would route FileChooser calls
/// to Wharf, and if not, why and what to change. Exit 0 when it would, 1 when not.
enum PortalCheck {
    static func run(_ command: PortalCommand) -> Int32 {
        let report = PortalRouting.examine(environment: BusAddress.processEnvironment())
        ProcessControl.writeToStandardOutput(Array(report.text.utf8))
        return report.routesToWharf ? 0 : 1
    }
}

/// What decides which FileChooser backend the portal uses, read the way xdg-desktop-portal reads
/// it: the `.portal` files of its folder (`XDG_DESKTOP_PORTAL_DIR`, else its data folder), then
/// `portals.conf` (1.18 and later), else `UseIn=` against `XDG_CURRENT_DESKTOP` (1.16 and
/// 1.17; later ones too when no portals.conf says). The frontend's own environment is read
/// from `/proc` when it runs, since that, not this shell's, is what it decided with.
struct PortalRouting {
    var routesToWharf = false
    var lines: [String] = []

    var text: String { lines.map { $0 + "\n" }.joined() }

    static let frontendName = "org.freedesktop.portal.Desktop"
    static let fileChooser = "org.freedesktop.impl.portal.FileChooser"

    struct Backend: Equatable {
        /// The file's name without `.portal`: what portals.conf names.
        var name: String
        var busName: String
        var interfaces: [String]
        var useIn: [String]
    }

    static func examine(environment: [String: String]) -> PortalRouting {
        var report = PortalRouting()
        func say(_ line: String) { report.lines.append(line) }
        let address: String
        switch BusAddress.session(environment: environment) {
        case .success(let found): address = found
        case .failure(let error):
            say("no: there is no session bus here (\(error.message)). Run wharf portal --check inside the desktop session.")
            return report
        }
        let connection: BusConnection
        switch BusConnection.openAndWait(address: address, description: "wharf-portal-check", timeoutMs: 3000) {
        case .success(let open): connection = open
        case .failure(let error):
            say("no: cannot connect to the session bus at \(address): \(error.message)")
            return report
        }
        defer { connection.close() }
        func busCall(_ member: String, _ body: [BusValue]) -> [BusValue]? {
            try? connection.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                        interface: "org.freedesktop.DBus", member: member, body: body, timeoutMs: 3000).get().body
        }
        var frontendEnvironment = environment
        var program = "/usr/libexec/xdg-desktop-portal"
        if busCall("NameHasOwner", [.string(frontendName)])?.first?.boolValue == true,
           let pid = busCall("GetConnectionUnixProcessID", [.string(frontendName)])?.first?.uint32Value {
            say("xdg-desktop-portal is running (pid \(pid)).")
            if let own = processEnvironment(pid) { frontendEnvironment = own }
            program = "/proc/\(pid)/exe"
        } else {
            say("xdg-desktop-portal is not running on this bus: apps start it when they first call it (D-Bus activation); "
                + "what it would do when started from here:")
        }
        let version = frontendVersion(program)
        say("Its version: \(version.map { $0.map(String.init).joined(separator: ".") } ?? "unknown (assumed 1.16)").")

        let folder = frontendEnvironment["XDG_DESKTOP_PORTAL_DIR"].flatMap(FilePath.init) ?? "/usr/share/xdg-desktop-portal/portals"
        let backends = portalFiles(in: folder)
        say("Backends in \(folder): \(backends.isEmpty ? "none" : backends.map(\.name).joined(separator: ", ")).")
        let choosers = backends.filter { $0.interfaces.contains(fileChooser) }
        guard let wharf = choosers.first(where: { $0.busName == PortalBackend.busName }) else {
            say("no: \(folder) has no .portal file for \(PortalBackend.busName). Copy wharf.portal there "
                + "(make install PREFIX=/usr, or the .deb, installs it; /usr/local/share is not read by Debian's portal), "
                + "or point the portal at a folder holding it with XDG_DESKTOP_PORTAL_DIR.")
            return report
        }
        let desktops = (frontendEnvironment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { String($0).lowercased() }
        say("XDG_CURRENT_DESKTOP of the portal: \(desktops.isEmpty ? "unset" : desktops.joined(separator: ":")).")

        var chosen: Backend?
        var how = ""
        if (version ?? [1, 16]).lexicographicallyPrecedes([1, 18]) == false,
           let (file, names) = preferredFileChoosers(desktops: desktops, environment: frontendEnvironment) {
            how = "portals.conf (\(file)) prefers \(names.joined(separator: ";"))"
            chosen = names.lazy.compactMap { name in choosers.first { $0.name == name } }.first
        } else {
            how = "UseIn= against XDG_CURRENT_DESKTOP"
            chosen = byUseIn(choosers, desktops: desktops)
        }
        guard let chosen else {
            say("no: by \(how), no FileChooser backend is chosen.")
            return report
        }
        guard chosen == wharf else {
            say("no: by \(how), FileChooser calls go to \(chosen.name) (\(chosen.busName)).")
            if (version ?? [1, 16]).lexicographicallyPrecedes([1, 18]) {
                say("To change it on this portal: put wharf first in XDG_CURRENT_DESKTOP (wharf.portal says UseIn=\(wharf.useIn.joined(separator: ";"))), "
                    + "as XDG_CURRENT_DESKTOP=wharf:\(desktops.first ?? "GNOME") in the session's environment, then restart xdg-desktop-portal.")
            } else {
                say("To change it: in ~/.config/xdg-desktop-portal/portals.conf, under [preferred], "
                    + "org.freedesktop.impl.portal.FileChooser=wharf; then restart xdg-desktop-portal.")
            }
            return report
        }
        let activatable = busCall("ListActivatableNames", [])?.first?.arrayItems?.contains(.string(PortalBackend.busName)) == true
        let running = busCall("NameHasOwner", [.string(PortalBackend.busName)])?.first?.boolValue == true
        guard activatable || running else {
            say("no: by \(how), FileChooser calls go to wharf, but nothing can start \(PortalBackend.busName): "
                + "install org.freedesktop.impl.portal.desktop.wharf.service into a dbus-1/services folder "
                + "(make install PREFIX=/usr, or the .deb), or run wharf portal.")
            return report
        }
        say("yes: by \(how), FileChooser calls go to wharf (\(running ? "running now" : "started when first called")).")
        report.routesToWharf = true
        return report
    }

    /// 1.16's rule: for each desktop in order, the first backend (files in name order) whose
    /// UseIn names it; else any backend.
    static func byUseIn(_ choosers: [Backend], desktops: [String]) -> Backend? {
        for desktop in desktops {
            if let found = choosers.first(where: { $0.useIn.contains { $0.lowercased() == desktop } }) { return found }
        }
        return choosers.first
    }

    /// The first portals.conf the portal reads (per desktop, then the general one; the user's,
    /// then the system's) that says which FileChooser it prefers, and the names it lists.
    static func preferredFileChoosers(desktops: [String], environment: [String: String]) -> (FilePath, [String])? {
        let home = environment["HOME"] ?? "/"
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let configDirs = (environment["XDG_CONFIG_DIRS"] ?? "/etc/xdg").split(separator: ":").map(String.init)
        let folders = ([configHome] + configDirs).map { $0 + "/xdg-desktop-portal" } + ["/usr/share/xdg-desktop-portal"]
        for folder in folders {
            for name in desktops.map({ $0 + "-portals.conf" }) + ["portals.conf"] {
                guard let path = FilePath(folder + "/" + name), let text = readText(path) else { continue }
                let values = keyFile(text, group: "preferred")
                if let list = values[fileChooser] ?? values["default"] {
                    return (path, list.split(separator: ";").map { String($0).trimmingCharacters() }.filter { !$0.isEmpty })
                }
            }
        }
        return nil
    }

    static func portalFiles(in folder: FilePath) -> [Backend] {
        guard let (entries, handle) = try? DirectoryReader.read(folder) else { return [] }
        handle.close()
        let suffix = Array(".portal".utf8)
        return entries.map(\.name).filter { $0.count > suffix.count && Array($0.suffix(suffix.count)) == suffix }.sorted { $0.lexicographicallyPrecedes($1) }
            .compactMap { name -> Backend? in
                guard let text = readText(folder.appending(name)) else { return nil }
                let values = keyFile(text, group: "portal")
                guard let busName = values["DBusName"] else { return nil }
                func list(_ key: String) -> [String] { (values[key] ?? "").split(separator: ";").map(String.init).filter { !$0.isEmpty } }
                return Backend(name: String(decoding: name.dropLast(suffix.count), as: UTF8.self), busName: busName,
                               interfaces: list("Interfaces"), useIn: list("UseIn"))
            }
    }

    /// `key=value` lines of one `[group]` of a desktop-entry-style file.
    static func keyFile(_ text: String, group: String) -> [String: String] {
        var values: [String: String] = [:]
        var inGroup = false
        for raw in text.split(separator: "\n") {
            let line = String(raw).trimmingCharacters()
            if line.hasPrefix("[") { inGroup = line == "[\(group)]"; continue }
            guard inGroup, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals]).trimmingCharacters()] = String(line[line.index(after: equals)...]).trimmingCharacters()
        }
        return values
    }

    static func readText(_ path: FilePath) -> String? {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { file.close() }
        return (try? file.readToEnd(limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func processEnvironment(_ pid: UInt32) -> [String: String]? {
        guard let path = FilePath("/proc/\(pid)/environ"), let file = try? FileDescriptor.open(path, O_RDONLY | O_CLOEXEC),
              let bytes = try? file.readToEnd(limit: 1 << 20)
        else { return nil }
        file.close()
        var variables: [String: String] = [:]
        for entry in bytes.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            variables[String(decoding: entry[..<equals], as: UTF8.self)] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
        }
        return variables
    }

    /// `xdg-desktop-portal --version` (`xdg-desktop-portal 1.16.0`) as numbers.
    static func frontendVersion(_ program: String) -> [Int]? {
        guard let child = try? Subprocess.spawn(program, arguments: ["--version"], standardInput: .null,
                                                standardOutput: .pipe, standardError: .null)
        else { return nil }
        let output = String(decoding: child.readUntilExit().output, as: UTF8.self)
        guard let word = output.split(separator: " ").last else { return nil }
        let numbers = word.split(separator: ".").compactMap { Int($0.filter(\.isNumber)) }
        return numbers.count >= 2 ? numbers : nil
    }
}

private extension String {
    func trimmingCharacters() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return String(text)
    }
}
