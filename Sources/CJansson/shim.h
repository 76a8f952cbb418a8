#ifndef WHARF_CJANSSON_SHIM_H
#define WHARF_CJANSSON_SHIM_H
#include <jansson.h>

/// `json_typeof` is a macro; Swift sees the struct field, but a function keeps call sites readable.
static inline json_type wharf_json_typeof(const json_t *value) { return json_typeof(value); }
#endif
