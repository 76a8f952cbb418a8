/// WharfDBus: the one module of Wharf that speaks D-Bus.
///
/// **Why sd-bus (libsystemd) and not libdbus-1.** Both are on every Debian desktop. sd-bus fits
/// how Wharf is built:
///
/// - *One owner thread, no main loop.* sd-bus is deliberately not thread-safe and exposes exactly
///   what a private poll loop needs (`sd_bus_get_fd`, `sd_bus_get_events`, `sd_bus_get_timeout`,
///   `sd_bus_process`). ``BusConnection`` gives the connection a thread of its own and marshals
///   every call to it. libdbus wants its watch/timeout callbacks wired into a main loop, or its
///   global locks and `dbus_threads_init`, and it keeps process-global state.
/// - *Nothing hidden that can hang or exit.* libdbus autolaunches a bus through X11
///   (`dbus-launch`) when no address is set and calls `_exit` on disconnect unless told not to;
///   sd-bus does neither. A missing session bus is an immediate, explainable error.
/// - *Timeouts and errors per call.* `sd_bus_call_async` takes a timeout and answers a timeout or
///   a vanished peer with an ordinary error reply; errors are negative errno values plus a
///   D-Bus error name and message, which become human sentences.
/// - *Non-variadic marshalling.* `append_basic`, `open_container`, `read_basic`, `peek_type`
///   map one-to-one onto ``BusValue``; the shim needs only three helpers.
///
/// What it costs: libsystemd (`libsystemd0` is on every systemd machine, desktop or not; a
/// non-systemd distribution would need elogind's `libelogind`, which ships the same API). It is
/// loaded by the first connection, not linked (see CSystemBus), so that a `wharf` that never
/// connects (no session bus, a presenter other than the portal) does not pay the start-up time
/// and memory of it and the libraries it pulls in. Without it a connection fails
/// saying why, and the portal is unusable. Nothing in this module uses systemd itself, only its
/// bus library.
///
/// The module knows nothing of portals: it offers a connection (``BusConnection``), values
/// (``BusValue``), incoming messages (``BusMessage``), match rules (``BusMatchRule``), exported
/// objects for stubs and tests, and the session bus address (``BusAddress``).
enum WharfDBus {}
