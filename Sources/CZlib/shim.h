// zlib's init functions are macros, which Swift cannot call: one-line forwarders.
#ifndef COURIER_CZLIB_SHIM_H
#define COURIER_CZLIB_SHIM_H

#include <zlib.h>

static inline int czlib_deflateInit2(z_streamp s, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(s, level, method, windowBits, memLevel, strategy);
}
static inline int czlib_inflateInit2(z_streamp s, int windowBits) { return inflateInit2(s, windowBits); }

#endif
