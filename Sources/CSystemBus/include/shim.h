#ifndef WHARF_CSYSTEMBUS_SHIM_H
#define WHARF_CSYSTEMBUS_SHIM_H
/// sd-bus, loaded on first use. Nothing links libsystemd: the first call of any function here
/// dlopens libsystemd.so.0 (LazySystemBus.c), so a process that never speaks D-Bus never maps
/// it and the libraries it pulls in. <systemd/sd-bus.h> is here for its types only: call the
/// wharf_sd_bus_* functions, never sd_bus_* (those would not link). Each has the signature and
/// behaviour of its sd_bus_* namesake; when the library cannot be loaded, those returning int
/// return -ENOSYS, those returning a pointer NULL, and wharf_sd_bus_error_free does nothing.
#include <stdbool.h>
#include <systemd/sd-bus.h>

/// Loads libsystemd.so.0 if no call has yet; whether it is loaded, with every function below.
bool wharf_sd_bus_available(void);
/// Why it could not be loaded ("libsystemd.so.0 could not be loaded: " and dlerror's text), or
/// NULL when it is loaded. Loads it if no call has yet.
const char *wharf_sd_bus_load_error(void);

/// The functions wrapped, one F(return type, name, (parameters), (arguments), failure value)
/// each: the declarations below and the definitions in LazySystemBus.c are made from it.
#define WHARF_SD_BUS_FUNCTIONS(F) \
    F(int, sd_bus_new, (sd_bus **ret), (ret), -ENOSYS) \
    F(int, sd_bus_open_user, (sd_bus **ret), (ret), -ENOSYS) \
    F(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address), -ENOSYS) \
    F(int, sd_bus_set_description, (sd_bus *bus, const char *description), (bus, description), -ENOSYS) \
    F(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b), -ENOSYS) \
    F(int, sd_bus_start, (sd_bus *bus), (bus), -ENOSYS) \
    F(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus), NULL) \
    F(int, sd_bus_is_open, (sd_bus *bus), (bus), -ENOSYS) \
    F(int, sd_bus_is_ready, (sd_bus *bus), (bus), -ENOSYS) \
    F(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique), -ENOSYS) \
    F(int, sd_bus_get_fd, (sd_bus *bus), (bus), -ENOSYS) \
    F(int, sd_bus_get_events, (sd_bus *bus), (bus), -ENOSYS) \
    F(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec), -ENOSYS) \
    F(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r), -ENOSYS) \
    F(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie), -ENOSYS) \
    F(int, sd_bus_call, (sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply), \
      (bus, m, usec, ret_error, reply), -ENOSYS) \
    F(int, sd_bus_call_async, (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, \
      void *userdata, uint64_t usec), (bus, slot, m, callback, userdata, usec), -ENOSYS) \
    F(int, sd_bus_add_match_async, (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, \
      sd_bus_message_handler_t install_callback, void *userdata), (bus, slot, match, callback, install_callback, userdata), -ENOSYS) \
    F(int, sd_bus_add_object, (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, \
      void *userdata), (bus, slot, path, callback, userdata), -ENOSYS) \
    F(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot), (slot), NULL) \
    F(int, sd_bus_message_new_method_call, (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, \
      const char *interface, const char *member), (bus, m, destination, path, interface, member), -ENOSYS) \
    F(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m), -ENOSYS) \
    F(int, sd_bus_message_new_signal, (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, \
      const char *member), (bus, m, path, interface, member), -ENOSYS) \
    F(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m), NULL) \
    F(sd_bus_message *, sd_bus_message_ref, (sd_bus_message *m), (m), NULL) \
    F(const char *, sd_bus_message_get_sender, (sd_bus_message *m), (m), NULL) \
    F(const char *, sd_bus_message_get_path, (sd_bus_message *m), (m), NULL) \
    F(const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m), NULL) \
    F(const char *, sd_bus_message_get_member, (sd_bus_message *m), (m), NULL) \
    F(const sd_bus_error *, sd_bus_message_get_error, (sd_bus_message *m), (m), NULL) \
    F(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p), -ENOSYS) \
    F(int, sd_bus_message_append_array, (sd_bus_message *m, char type, const void *ptr, size_t size), (m, type, ptr, size), -ENOSYS) \
    F(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents), -ENOSYS) \
    F(int, sd_bus_message_close_container, (sd_bus_message *m), (m), -ENOSYS) \
    F(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p), -ENOSYS) \
    F(int, sd_bus_message_read_array, (sd_bus_message *m, char type, const void **ptr, size_t *size), (m, type, ptr, size), -ENOSYS) \
    F(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents), -ENOSYS) \
    F(int, sd_bus_message_exit_container, (sd_bus_message *m), (m), -ENOSYS) \
    F(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents), -ENOSYS) \
    F(int, sd_bus_reply_method_errorfv, (sd_bus_message *call, const char *name, const char *format, va_list ap), \
      (call, name, format, ap), -ENOSYS)

#define WHARF_SD_BUS_DECLARE(type, name, parameters, arguments, failure) type wharf_##name parameters;
WHARF_SD_BUS_FUNCTIONS(WHARF_SD_BUS_DECLARE)
#undef WHARF_SD_BUS_DECLARE

/// Variadic, so not for Swift (see wharf_bus_reply_error); by way of sd_bus_reply_method_errorfv.
int wharf_sd_bus_reply_method_errorf(sd_bus_message *call, const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/// Nothing to free when the library is not loaded: no call could have filled `e`.
void wharf_sd_bus_error_free(sd_bus_error *e);

/// SD_BUS_ERROR_NULL is a macro (a compound literal); Swift cannot import it.
static inline sd_bus_error wharf_bus_error_null(void) { return SD_BUS_ERROR_NULL; }

/// sd_bus_reply_method_errorf is variadic; this sends `message` as it is (no format string).
static inline int wharf_bus_reply_error(sd_bus_message *call, const char *name, const char *message) {
    return wharf_sd_bus_reply_method_errorf(call, name, "%s", message);
}

/// A `const char *` read by sd_bus_message_read_basic for 's', 'o' and 'g' lands in a void *
/// slot; this keeps the cast on the C side.
static inline int wharf_bus_read_string(sd_bus_message *m, char type, const char **out) {
    return wharf_sd_bus_message_read_basic(m, type, out);
}
#endif
