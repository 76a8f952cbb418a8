import Testing
import WharfDBus
import WharfDesktopTestSupport
import WharfSystem

/// Messages through a real `dbus-daemon` (a private one per test) to an echo service and back:
/// what ``BusValue`` writes, sd-bus marshals, the bus routes and the reader reads must be the
/// same value.
@Suite struct RoundTripTests {
    func echo(_ body: [BusValue]) throws -> [BusValue] {
        let bus = try PrivateBus()
        let service = try bus.connect()
        try EchoService.serve(on: service)
        let client = try bus.connect()
        defer { client.close(); service.close() }
        return try client.callAndWait(destination: EchoService.name, path: EchoService.path,
                                      interface: EchoService.interface, member: "Echo", body: body, timeoutMs: 5000).get().body
    }

    @Test func everyBasicTypeComesBackAsSent() throws {
        let body: [BusValue] = [
            .byte(0xFF), .boolean(true), .boolean(false), .int16(-2), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
            .int64(Int64.min), .uint64(UInt64.max), .double(-0.125), .string("Grüße, 世界 🚢"), .string(""),
            .objectPath("/org/freedesktop/portal/desktop/request/1_42/wharf_1"), .signature("a{sv}"),
        ]
        #expect(try echo(body) == body)
    }

    @Test func bytesThatAreNotUTF8SurviveExactly() throws {
        let latin1Path: [UInt8] = Array("/tmp/caf".utf8) + [0xE9] + Array(".txt".utf8) + [0]
        let body: [BusValue] = [.bytes(latin1Path), .bytes([]), .bytes([0xFF, 0xFE, 0x00, 0x80])]
        #expect(try echo(body) == body)
    }

    @Test func containersNestAsThePortalUsesThem() throws {
        let filters = BusValue.array(element: "(sa(us))", [
            .structure([.string("Images"), .array(element: "(us)", [.structure([.uint32(0), .string("*.[pP][nN][gG]")]),
                                                                    .structure([.uint32(1), .string("image/*")])])]),
            .structure([.string("Empty"), .array(element: "(us)", [])]),
        ])
        let options = BusValue.vardict([
            ("handle_token", .string("wharf_1_ab")), ("multiple", .boolean(true)), ("filters", filters),
            ("current_folder", .bytes(Array("/home/me".utf8) + [0])),
            ("files", .array(element: "ay", [.bytes([0x61, 0]), .bytes([0xE9, 0])])),
            ("nested", .variant(.variant(.uint32(7)))),
        ])
        let body: [BusValue] = [.string("x11:1a2b"), .string("Open"), options, .array(element: "s", []),
                                .array(element: "a{sv}", [.vardict([])])]
        let back = try echo(body)
        #expect(back == body)
        #expect(back[2].dictionary?["multiple"]?.unwrapped == .boolean(true))
    }

    @Test func anArrayWhoseItemsDoNotMatchItsTypeIsRefusedBeforeSending() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        defer { client.close() }
        let result = client.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                        interface: "org.freedesktop.DBus", member: "GetId",
                                        body: [.array(element: "s", [.uint32(1)])], timeoutMs: 2000)
        #expect(throws: BusError.self) { try result.get() }
        #expect(result.failureMessage?.contains("array of 's'") == true)
    }

    @Test func aStringWithANULIsRefused() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        defer { client.close() }
        let result = client.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                        interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                        body: [.string("a\u{0}b")], timeoutMs: 2000)
        #expect(result.failureMessage?.contains("NUL") == true)
    }
}

extension Result where Failure == BusError {
    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
    var failure: BusError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
