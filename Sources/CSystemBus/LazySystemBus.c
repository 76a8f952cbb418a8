// libsystemd's sd-bus, loaded with dlopen on the first call (see include/shim.h for why).
//
// The wrappers have names of our own: a `wharf` that exports its symbols dynamically (a debug
// build does; the release build does not) would have an sd_bus_* of ours interpose
// libsystemd's own. One pthread_once resolves every function, or none:
// a library lacking one (an old systemd) counts as not loaded. It is never unloaded.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include "shim.h"

#define LIBRARY "libsystemd.so.0"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
/// Why not, when not; written once, inside `once`.
static char failure[512];

#define WHARF_SD_BUS_MEMBER(type, name, parameters, arguments, failed) __typeof__(&name) name;
static struct {
    WHARF_SD_BUS_FUNCTIONS(WHARF_SD_BUS_MEMBER)
    __typeof__(&sd_bus_error_free) sd_bus_error_free;
} resolved;

/// Appends `text` to `failure` at `*used`, cut short at its end. No string functions: this file
/// calls nothing fortifiable (see packaging/debian/lintian-overrides).
static void append(size_t *used, const char *text) {
    for (; text && *text && *used + 1 < sizeof failure; text++) failure[(*used)++] = *text;
    failure[*used] = 0;
}

static void fail(void *library) {
    size_t used = 0;
    append(&used, LIBRARY " could not be loaded: ");
    append(&used, dlerror());
    if (library) dlclose(library);
}

static void load(void) {
    void *library = dlopen(LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fail(NULL);
        return;
    }
#define WHARF_SD_BUS_RESOLVE(type, name, parameters, arguments, failed) \
    if (!(resolved.name = (__typeof__(&name))dlsym(library, #name))) { \
        fail(library); \
        return; \
    }
    WHARF_SD_BUS_FUNCTIONS(WHARF_SD_BUS_RESOLVE)
    WHARF_SD_BUS_RESOLVE(void, sd_bus_error_free, , , )
    loaded = true;
}

bool wharf_sd_bus_available(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *wharf_sd_bus_load_error(void) { return wharf_sd_bus_available() ? NULL : failure; }

// Each wrapper has its namesake's exact type, or this file does not compile.
#define WHARF_SD_BUS_DEFINE(type, name, parameters, arguments, failed) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(wharf_##name), __typeof__(name)), \
                   "wharf_" #name " has another type than " #name); \
    type wharf_##name parameters { return wharf_sd_bus_available() ? resolved.name arguments : failed; }
WHARF_SD_BUS_FUNCTIONS(WHARF_SD_BUS_DEFINE)

int wharf_sd_bus_reply_method_errorf(sd_bus_message *call, const char *name, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int r = wharf_sd_bus_reply_method_errorfv(call, name, format, ap);
    va_end(ap);
    return r;
}

void wharf_sd_bus_error_free(sd_bus_error *e) {
    if (wharf_sd_bus_available()) resolved.sd_bus_error_free(e);
}
