import WharfDBus
import WharfServerTestSupport
import WharfDesktopDialogs
import WharfDesktopTestSupport
import WharfSystem

/// The cost from a call into WharfDesktopDialogs to its OpenFile appearing on the bus, and from
/// a `presentImporter` written to the `wharf` binary's standard input to the OpenFile it makes,
/// beside a direct sd-bus OpenFile from this same process, all seen by the same `dbus-monitor`.
///
/// "first" connects first (a new PortalFileChooser, a new sd-bus connection), "warm" reuses the
/// connection. Every dialog the portal opens is closed, and its window awaited gone, before the
/// next call, so one GTK window's drawing does not overlap the next measurement.
enum Measure {
    static let firstRuns = 5
    static let warmRuns = 15

    static func run() {
        guard let monitor = try? BusMonitor() else { return print("measure: cannot start dbus-monitor") }
        defer { monitor.stop() }
        // Ready once it reports a marker call of ours.
        let marker = try? BusConnection.openAndWait(address: BusAddress.session(environment: BusAddress.processEnvironment()).get(),
                                                    timeoutMs: 5000).get()
        var ready = false
        for _ in 0..<100 where !ready {
            _ = marker?.callAndWait(destination: "org.freedesktop.DBus", path: "/", interface: "org.wharf.Rig",
                                    member: "MonitorReady", timeoutMs: 1000)
            ready = monitor.count > 0
            if !ready { Desktop.pause(milliseconds: 50) }
        }
        marker?.close()
        guard ready else { return print("measure: dbus-monitor never saw the marker") }
        // Warm the portal itself (D-Bus activation, the GTK backend) so neither side pays it,
        // and open the connections the warm calls reuse.
        let warmChooser = PortalFileChooser()
        _ = warmChooser.probeAndWait(timeoutMs: 20_000)
        let warmDirect = DirectClient()
        _ = warmDirect.connect()
        // A `wharf` whose client draws no dialogs: the portal shows them.
        guard let server = try? WireClient.spawn(["--state-dir", ":memory:"]) else { return print("measure: cannot start wharf") }
        server.initialize(["clientInfo": ["name": "measure"]])
        var sightings = monitor.count

        func seen(after start: Int64) -> Double? {
            guard let sighting = monitor.sighting(sightings) else { return nil }
            sightings += 1
            return Double(sighting.micros - start) / 1000
        }

        var wharfFirst: [Double] = [], wharfWarm: [Double] = [], directFirst: [Double] = [], directWarm: [Double] = []
        var serverFirst: [Double] = [], serverWarm: [Double] = []
        // Interleaved, so that drift in machine load hits both sides alike.
        for round in 0..<(firstRuns + warmRuns) {
            let first = round < firstRuns
            // Wharf
            let chooser = first ? PortalFileChooser() : warmChooser
            let title = "Measure wharf \(round)"
            let start = RealClock.micros()
            let session = chooser.present(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: title)) { _ in }
            if let ms = seen(after: start) { first ? wharfFirst.append(ms) : wharfWarm.append(ms) }
            _ = Desktop.waitForWindow("^" + title, seconds: 20)
            session.cancel()
            _ = session.waitForResult(seconds: 10)
            Desktop.waitUntilGone("^" + title)
            // Direct
            let client = first ? DirectClient() : warmDirect
            let directTitle = "Measure direct \(round)"
            let directStart = RealClock.micros()
            if first { _ = client.connect() }
            let handle = client.openFile(title: directTitle, token: "direct_\(round)")
            if let ms = seen(after: directStart) { first ? directFirst.append(ms) : directWarm.append(ms) }
            _ = Desktop.waitForWindow("^" + directTitle, seconds: 20)
            if let handle { client.close(handle) }
            Desktop.waitUntilGone("^" + directTitle)
            if first { client.disconnect() }
            // The server, warm (its portal connection opened by the first dialog).
            let serverTitle = "Measure server \(round)"
            let serverStart = RealClock.micros()
            let id = server.call("presentImporter", ["allowedContentTypes": ["public.item"], "options": ["title": .string(serverTitle)]])?["dialogId"]
            // The first dialog of the server (its portal connection was opened by the probe at start).
            if let ms = seen(after: serverStart) { round == 0 ? serverFirst.append(ms) : serverWarm.append(ms) }
            _ = Desktop.waitForWindow("^" + serverTitle, seconds: 20)
            if let id { _ = server.call("cancel", ["dialogId": id]) }
            Desktop.waitUntilGone("^" + serverTitle)
        }
        _ = server.shutdownAndExit()
        warmDirect.disconnect()
        func row(_ name: String, _ first: [Double], _ warm: [Double]) -> String {
            "| \(name) | \(format(median(first))) | \(format(median(warm))) | \(format(warm.min() ?? .nan))–\(format(warm.max() ?? .nan)) |"
        }
        print("""
            measure: a call into the API → its OpenFile seen on the session bus by dbus-monitor (ms; medians of \(firstRuns) first and \(warmRuns) warm calls)
            | client | first (connects) | warm | warm min–max |
            | --- | --- | --- | --- |
            \(row("WharfDesktopDialogs PortalFileChooser.present", wharfFirst, wharfWarm))
            \(row("direct sd-bus OpenFile (same process)", directFirst, directWarm))
            \(row("the wharf binary: presentImporter on its stdin → OpenFile", serverFirst, serverWarm))
            measure: Wharf adds \(format(median(wharfWarm) - median(directWarm))) ms warm, \(format(median(wharfFirst) - median(directFirst))) ms first
            measure: the wharf server, presentImporter to OpenFile, warm: \(format(median(serverWarm))) ms, \(format(median(serverWarm) - median(directWarm))) ms above the direct call (target < 2)
            """)
    }


    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ value: Double) -> String {
        value.isNaN ? "–" : String(Double(Int((value * 1000).rounded())) / 1000)
    }
}
