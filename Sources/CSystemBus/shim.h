#ifndef WHARF_CSYSTEMBUS_SHIM_H
#define WHARF_CSYSTEMBUS_SHIM_H
#include <systemd/sd-bus.h>

/// SD_BUS_ERROR_NULL is a macro (a compound literal); Swift cannot import it.
static inline sd_bus_error wharf_bus_error_null(void) { return SD_BUS_ERROR_NULL; }

/// sd_bus_reply_method_errorf is variadic; this sends `message` as it is (no format string).
static inline int wharf_bus_reply_error(sd_bus_message *call, const char *name, const char *message) {
    return sd_bus_reply_method_errorf(call, name, "%s", message);
}

/// A `const char *` read by sd_bus_message_read_basic for 's', 'o' and 'g' lands in a void *
/// slot; this keeps the cast on the C side.
static inline int wharf_bus_read_string(sd_bus_message *m, char type, const char **out) {
    return sd_bus_message_read_basic(m, type, out);
}
#endif
