// One-line forwarders for the parts of Duktape's C API that are macros, which Swift cannot call.
// No logic lives here: every function forwards its arguments unchanged.
#ifndef COURIER_CDUKTAPE_SHIM_H
#define COURIER_CDUKTAPE_SHIM_H

#include <duktape.h>

static inline duk_context *cduk_create_heap_default(void) { return duk_create_heap_default(); }
static inline duk_int_t cduk_peval_lstring(duk_context *ctx, const char *src, duk_size_t len) { return duk_peval_lstring(ctx, src, len); }

#endif
