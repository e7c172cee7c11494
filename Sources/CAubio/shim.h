// aubio 0.4 for Swift: its beat tracker (aubio_tempo), for the beat clicks of a tempo-matched
// render ([tempo] click). PacenoteTempo is the only importer.
//
// libaubio is loaded when the first song is tracked (dlopen), not linked: Debian's libaubio5
// needs libavcodec, libavformat, libjack and ~130 libraries more, and linked they were mapped
// and relocated at every start: 25.5 MiB resident in a daemon that never clicks (a sleeping
// process: 1.8 MiB, with libaubio preloaded 27.4 MiB). Its headers are not included either
// (pkg-config's flags would link it): the few types and functions used are declared here as
// aubio 0.4 defines them (soname libaubio.so.5; smpl_t is float in Debian's single-precision
// build). Each function below has aubio's name and calls the one loaded, so Swift calls them as
// it would call aubio. `pn_aubio_load` must have succeeded first.
#ifndef PACENOTE_CAUBIO_SHIM_H
#define PACENOTE_CAUBIO_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef float smpl_t;
typedef unsigned int uint_t;
typedef char char_t;

/// fvec.h: a vector of samples.
typedef struct {
    uint_t length;
    smpl_t *data;
} fvec_t;

/// tempo/tempo.h
typedef struct _aubio_tempo_t aubio_tempo_t;

typedef struct pn_aubio {
    aubio_tempo_t *(*new_tempo)(const char_t *method, uint_t buf_size, uint_t hop_size, uint_t samplerate);
    void (*tempo_do)(aubio_tempo_t *o, const fvec_t *input, fvec_t *tempo);
    smpl_t (*tempo_get_last_s)(aubio_tempo_t *o);
    smpl_t (*tempo_get_bpm)(aubio_tempo_t *o);
    smpl_t (*tempo_get_confidence)(aubio_tempo_t *o);
    void (*del_tempo)(aubio_tempo_t *o);
    fvec_t *(*new_fvec)(uint_t length);
    void (*del_fvec)(fvec_t *s);
    /// dlerror()'s text if loading failed.
    const char *load_failure;
} pn_aubio;

/// The table, filled once by `pn_aubio_load`; weak, so every module that emits these inline
/// functions shares one table.
__attribute__((weak)) pn_aubio pn_aubio_table = {0};
__attribute__((weak)) pthread_once_t pn_aubio_once = PTHREAD_ONCE_INIT;
__attribute__((weak)) char pn_aubio_failure_text[512] = {0};

static inline void pn_aubio_failed(pn_aubio *api) {
    const char *error = dlerror();
    snprintf(pn_aubio_failure_text, sizeof pn_aubio_failure_text, "%s", error != NULL ? error : "unknown error");
    api->load_failure = pn_aubio_failure_text;
}

static inline void pn_aubio_load_once(void) {
    pn_aubio *api = &pn_aubio_table;
    void *library = dlopen("libaubio.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        pn_aubio_failed(api);
        return;
    }
#define PN_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) { pn_aubio_failed(api); return; }
    PN_SYMBOL(new_tempo, "new_aubio_tempo");
    PN_SYMBOL(tempo_do, "aubio_tempo_do");
    PN_SYMBOL(tempo_get_last_s, "aubio_tempo_get_last_s");
    PN_SYMBOL(tempo_get_bpm, "aubio_tempo_get_bpm");
    PN_SYMBOL(tempo_get_confidence, "aubio_tempo_get_confidence");
    PN_SYMBOL(del_tempo, "del_aubio_tempo");
    PN_SYMBOL(new_fvec, "new_fvec");
    PN_SYMBOL(del_fvec, "del_fvec");
#undef PN_SYMBOL
}

/// Loads libaubio (once for the life of the process); returns why it failed, NULL on success.
static inline const char *pn_aubio_load(void) {
    pthread_once(&pn_aubio_once, pn_aubio_load_once);
    return pn_aubio_table.load_failure;
}

static inline aubio_tempo_t *new_aubio_tempo(const char_t *method, uint_t buf_size, uint_t hop_size, uint_t samplerate) {
    return pn_aubio_table.new_tempo(method, buf_size, hop_size, samplerate);
}
static inline void aubio_tempo_do(aubio_tempo_t *o, const fvec_t *input, fvec_t *tempo) { pn_aubio_table.tempo_do(o, input, tempo); }
static inline smpl_t aubio_tempo_get_last_s(aubio_tempo_t *o) { return pn_aubio_table.tempo_get_last_s(o); }
static inline smpl_t aubio_tempo_get_bpm(aubio_tempo_t *o) { return pn_aubio_table.tempo_get_bpm(o); }
static inline smpl_t aubio_tempo_get_confidence(aubio_tempo_t *o) { return pn_aubio_table.tempo_get_confidence(o); }
static inline void del_aubio_tempo(aubio_tempo_t *o) { pn_aubio_table.del_tempo(o); }
static inline fvec_t *new_fvec(uint_t length) { return pn_aubio_table.new_fvec(length); }
static inline void del_fvec(fvec_t *s) { pn_aubio_table.del_fvec(s); }

#endif
