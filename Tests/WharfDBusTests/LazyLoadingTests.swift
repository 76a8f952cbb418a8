import Testing
import WharfDBus
import WharfDesktopTestSupport
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// libsystemd is loaded by the first D-Bus connection, not linked (see CSystemBus): a `wharf`
/// that never connects never maps it, one that connects does and works, and one that cannot
/// load it says why and serves on without the portal.
@Suite struct LazyLoadingTests {
    /// Whether the process `pid` (a number, or "self") has libsystemd mapped.
    func mapsLibsystemd(_ pid: String) -> Bool {
        readText(FilePath("/proc/\(pid)/maps")!)?.contains("/libsystemd.so") == true
    }

    /// An initialized `wharf` whose client draws no dialogs (so `initialize` waits for the
    /// portal's probe) and why it says the portal is unusable.
    func initializedWharf(environment: [String: String] = [:], removing: Set<String> = []) throws -> (WireClient, String?) {
        let client = try WireClient.spawn(["--state-dir", ":memory:"], environment: environment, removing: removing)
        let result = client.initialize()
        return (client, result?["capabilities"]?["unavailablePresenters"]?["portal"]?.stringValue)
    }

    @Test func aWharfMapsLibsystemdOnlyOnceItConnects() throws {
        let (alone, whyAlone) = try initializedWharf(removing: ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"])
        let aloneProcess = try #require(alone.process)
        #expect(whyAlone?.contains("no D-Bus session bus") == true, "\(String(describing: whyAlone))")
        #expect(!mapsLibsystemd(String(aloneProcess.pid)), "a wharf that never spoke D-Bus has libsystemd mapped")

        let bus = try PrivateBus()
        let (connected, whyConnected) = try initializedWharf(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let connectedProcess = try #require(connected.process)
        #expect(whyConnected?.contains("xdg-desktop-portal is not installed") == true, "\(String(describing: whyConnected))")
        #expect(mapsLibsystemd(String(connectedProcess.pid)), "the portal's probe connected without loading libsystemd")
        #expect(alone.shutdownAndExit() == 0 && connected.shutdownAndExit() == 0)
    }

    @Test func aConnectionInThisProcessLoadsLibsystemdAndWorks() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        defer { client.close() }
        let reply = try client.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus", member: "GetId", timeoutMs: 5000).get()
        #expect(reply.body.first?.stringValue?.isEmpty == false, "\(reply)")
        #expect(mapsLibsystemd("self"))
    }

    /// The dynamic loader finds an empty file first on LD_LIBRARY_PATH and refuses it.
    @Test func aWharfThatCannotLoadLibsystemdSaysWhyAndServesOn() throws {
        let scratch = ScratchDirectory("wharf-no-libsystemd")
        scratch.write("libsystemd.so.0", "")
        let bus = try PrivateBus()
        let (client, why) = try initializedWharf(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address,
                                                               "LD_LIBRARY_PATH": scratch.path.description])
        #expect(why?.contains("libsystemd.so.0 could not be loaded: ") == true, "\(String(describing: why))")
        #expect(client.call("ping") != nil)
        #expect(client.shutdownAndExit() == 0)
    }
}
