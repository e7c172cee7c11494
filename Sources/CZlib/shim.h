#ifndef PACENOTE_ZLIB_SHIM_H
#define PACENOTE_ZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2 is a macro (it passes zlib's version and the size of z_stream), which Swift
/// cannot call. Window bits -15: raw deflate without a zlib header, as zip entries hold it
/// (APPNOTE.TXT 4.4.5, method 8).
static inline int pacenote_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}

#endif
