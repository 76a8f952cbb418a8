import CSystemBus

/// The baseline: the few lines any program would write to call OpenFile itself, with sd-bus
/// on its own thread, synchronously, no threads or queues of Wharf's in between.
final class DirectClient {
    private(set) var bus: OpaquePointer?

    /// Connects to the session bus (`sd_bus_open_user`: DBUS_SESSION_BUS_ADDRESS).
    func connect() -> Bool {
        wharf_sd_bus_open_user(&bus) >= 0
    }

    /// Calls OpenFile with a title and a handle_token and waits for the reply; the handle.
    func openFile(title: String, token: String) -> String? {
        var message: OpaquePointer?
        guard wharf_sd_bus_message_new_method_call(bus, &message, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                                             "org.freedesktop.portal.FileChooser", "OpenFile") >= 0 else { return nil }
        defer { wharf_sd_bus_message_unref(message) }
        func s(_ text: String) { _ = text.withCString { wharf_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) } }
        s("")
        s(title)
        wharf_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
        wharf_sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv")
        s("handle_token")
        wharf_sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "s")
        s(token)
        wharf_sd_bus_message_close_container(message)
        wharf_sd_bus_message_close_container(message)
        wharf_sd_bus_message_close_container(message)
        var error = wharf_bus_error_null()
        var reply: OpaquePointer?
        defer { wharf_sd_bus_error_free(&error); wharf_sd_bus_message_unref(reply) }
        guard wharf_sd_bus_call(bus, message, 25_000_000, &error, &reply) >= 0 else { return nil }
        var handle: UnsafePointer<CChar>?
        guard wharf_bus_read_string(reply, CChar(UInt8(ascii: "o")), &handle) >= 0, let handle else { return nil }
        return String(cString: handle)
    }

    /// Request.Close on `handle`.
    func close(_ handle: String) {
        var message: OpaquePointer?
        guard wharf_sd_bus_message_new_method_call(bus, &message, "org.freedesktop.portal.Desktop", handle,
                                             "org.freedesktop.portal.Request", "Close") >= 0 else { return }
        var error = wharf_bus_error_null()
        var reply: OpaquePointer?
        _ = wharf_sd_bus_call(bus, message, 5_000_000, &error, &reply)
        wharf_sd_bus_error_free(&error)
        wharf_sd_bus_message_unref(reply)
        wharf_sd_bus_message_unref(message)
    }

    func disconnect() {
        wharf_sd_bus_flush_close_unref(bus)
        bus = nil
    }
}
