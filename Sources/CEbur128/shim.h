// libebur128 for Swift: the EBU R 128 loudness meter (ITU-R BS.1770 integrated loudness and
// EBU Tech 3342 loudness range) that `pacenote analyze` measures each track's energy with.
// PacenoteTempo is the only importer.
//
// libebur128 is loaded when the first track is measured (dlopen), not linked, as aubio and
// libsndfile are: a daemon that never analyses needs neither it nor its package. Its header is
// not included either (pkg-config's flags would link it): the few types, constants and
// functions used are declared here as libebur128 1.2 defines them (soname libebur128.so.1).
// `TempoDeclarationsTests` compiles the real header and checks these against it.
// Each function below has libebur128's name and calls the one loaded; `pn_ebur128_load` first.
#ifndef PACENOTE_CEBUR128_SHIM_H
#define PACENOTE_CEBUR128_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/// The meter's state; its fields are never read here, so it is opaque.
typedef struct pn_ebur128_state ebur128_state;

/// `enum mode`: what the meter keeps. Integrated loudness needs MODE_I, loudness range MODE_LRA.
enum { EBUR128_MODE_M = 1, EBUR128_MODE_S = 3, EBUR128_MODE_I = 5, EBUR128_MODE_LRA = 11 };
/// `enum channel`: the one used, a channel counted twice (a mono file heard on two speakers).
enum { EBUR128_DUAL_MONO = 6 };
/// `enum error`: 0 is success.
enum { EBUR128_SUCCESS = 0 };

typedef struct pn_ebur128 {
    ebur128_state *(*init)(unsigned int channels, unsigned long samplerate, int mode);
    void (*destroy)(ebur128_state **st);
    int (*set_channel)(ebur128_state *st, unsigned int channel_number, int value);
    int (*add_frames_float)(ebur128_state *st, const float *src, size_t frames);
    int (*loudness_global)(ebur128_state *st, double *out);
    int (*loudness_range)(ebur128_state *st, double *out);
    /// dlerror()'s text if loading failed.
    const char *load_failure;
} pn_ebur128;

/// The table, filled once by `pn_ebur128_load`; weak, so every module that emits these inline
/// functions shares one table.
__attribute__((weak)) pn_ebur128 pn_ebur128_table = {0};
__attribute__((weak)) pthread_once_t pn_ebur128_once = PTHREAD_ONCE_INIT;
__attribute__((weak)) char pn_ebur128_failure_text[512] = {0};

static inline void pn_ebur128_failed(pn_ebur128 *api) {
    const char *error = dlerror();
    snprintf(pn_ebur128_failure_text, sizeof pn_ebur128_failure_text, "%s", error != NULL ? error : "unknown error");
    api->load_failure = pn_ebur128_failure_text;
}

static inline void pn_ebur128_load_once(void) {
    pn_ebur128 *api = &pn_ebur128_table;
    void *library = dlopen("libebur128.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        pn_ebur128_failed(api);
        return;
    }
#define PN_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) { pn_ebur128_failed(api); return; }
    PN_SYMBOL(init, "ebur128_init");
    PN_SYMBOL(destroy, "ebur128_destroy");
    PN_SYMBOL(set_channel, "ebur128_set_channel");
    PN_SYMBOL(add_frames_float, "ebur128_add_frames_float");
    PN_SYMBOL(loudness_global, "ebur128_loudness_global");
    PN_SYMBOL(loudness_range, "ebur128_loudness_range");
#undef PN_SYMBOL
}

/// Loads libebur128 (once for the life of the process); returns why it failed, NULL on success.
static inline const char *pn_ebur128_load(void) {
    pthread_once(&pn_ebur128_once, pn_ebur128_load_once);
    return pn_ebur128_table.load_failure;
}

static inline ebur128_state *ebur128_init(unsigned int channels, unsigned long samplerate, int mode) {
    return pn_ebur128_table.init(channels, samplerate, mode);
}
static inline void ebur128_destroy(ebur128_state **st) { pn_ebur128_table.destroy(st); }
static inline int ebur128_set_channel(ebur128_state *st, unsigned int channel_number, int value) {
    return pn_ebur128_table.set_channel(st, channel_number, value);
}
static inline int ebur128_add_frames_float(ebur128_state *st, const float *src, size_t frames) {
    return pn_ebur128_table.add_frames_float(st, src, frames);
}
static inline int ebur128_loudness_global(ebur128_state *st, double *out) { return pn_ebur128_table.loudness_global(st, out); }
static inline int ebur128_loudness_range(ebur128_state *st, double *out) { return pn_ebur128_table.loudness_range(st, out); }

#endif
