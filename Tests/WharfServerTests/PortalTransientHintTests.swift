import Testing
import WharfSystem
@testable import WharfServer

/// The X11 that makes a portal's terminal window transient for the app's: which displays are
/// reached, which cookie is sent, and the bytes of the one property written. The property on a
/// real xterm is tested by Tests/portal (XtermPickerTests, under Xvfb with a cookie).
@Suite struct PortalTransientHintTests {
    @Test func onlyLocalDisplaysAreReached() {
        #expect(PortalTransientHint.localDisplay(":3")?.1 == "3")
        #expect(PortalTransientHint.localDisplay(":12.0")?.0 == FilePath("/tmp/.X11-unix/X12"))
        #expect(PortalTransientHint.localDisplay("unix:4")?.1 == "4")
        for display in ["localhost:10.0", ":", ":x", "wayland-0", ""] {
            #expect(PortalTransientHint.localDisplay(display) == nil, "\(display)")
        }
    }

    func entry(family: UInt16, display: String, name: String, data: [UInt8]) -> [UInt8] {
        func field(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        return [UInt8(family >> 8), UInt8(family & 0xFF)] + field(Array("host".utf8)) + field(Array(display.utf8))
            + field(Array(name.utf8)) + field(data)
    }

    @Test func theCookieIsTheLocalOneForTheDisplay() {
        let file = entry(family: 0, display: "1", name: "MIT-MAGIC-COOKIE-1", data: [9])      // over the network
            + entry(family: 256, display: "0", name: "MIT-MAGIC-COOKIE-1", data: [0])
            + entry(family: 256, display: "1", name: "XDM-AUTHORIZATION-1", data: [8])
            + entry(family: 256, display: "1", name: "MIT-MAGIC-COOKIE-1", data: [1, 2, 3])
        #expect(PortalTransientHint.cookie(in: file, display: "1") == [1, 2, 3])
        #expect(PortalTransientHint.cookie(in: file, display: "0") == [0])
        #expect(PortalTransientHint.cookie(in: file, display: "5") == nil)
        // Any display (family wild, no number), and a file cut short.
        #expect(PortalTransientHint.cookie(in: entry(family: 65535, display: "", name: "MIT-MAGIC-COOKIE-1", data: [7]), display: "5") == [7])
        #expect(PortalTransientHint.cookie(in: Array(file.dropLast(2)), display: "1") == nil)
    }

    @Test func theRequestsAreTheProtocols() {
        let setup = PortalTransientHint.setupRequest(cookie: [1, 2, 3, 4, 5])
        #expect(Array(setup.prefix(12)) == [0x6C, 0, 11, 0, 0, 0, 18, 0, 5, 0, 0, 0])
        #expect(setup.count == 12 + 20 + 8, "name and data padded to four bytes")
        #expect(PortalTransientHint.setupRequest(cookie: nil) == [0x6C, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(PortalTransientHint.changeProperty(window: 0x0020_000C, parent: 0x2A) == [
            18, 0, 7, 0, 0x0C, 0, 0x20, 0, 68, 0, 0, 0, 33, 0, 0, 0, 32, 0, 0, 0, 1, 0, 0, 0, 0x2A, 0, 0, 0,
        ])
    }
}
