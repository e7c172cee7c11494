// Rubber Band Library 3.x for Swift: time-stretching with the pitch kept, for tempo-matched
// renders. PacenoteTempo is the only importer.
//
// librubberband is loaded when the first song is rendered (dlopen), not linked: linked, it and
// what it needs (libfftw3, libsamplerate) were mapped and relocated at every start, ~0.7 MiB
// resident in a daemon that never renders. Its header is not included either (pkg-config's flags
// would link it): the types, options and functions used are declared here as rubberband-c.h 3.x
// defines them (soname librubberband.so.2). `TempoDeclarationsTests` checks them against it.
// Each function below has Rubber Band's name and calls the one loaded; `pn_rubberband_load` first.
#ifndef PACENOTE_CRUBBERBAND_SHIM_H
#define PACENOTE_CRUBBERBAND_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/// The options Pacenote sets (`TempoQuality`), with rubberband-c.h's values.
enum RubberBandOption {
    RubberBandOptionProcessOffline = 0x00000000,
    RubberBandOptionTransientsCrisp = 0x00000000,
    RubberBandOptionWindowShort = 0x00100000,
    RubberBandOptionEngineFaster = 0x00000000,
    RubberBandOptionEngineFiner = 0x20000000
};
typedef int RubberBandOptions;

struct RubberBandState_;
typedef struct RubberBandState_ *RubberBandState;

typedef struct pn_rubberband {
    RubberBandState (*create)(unsigned int sampleRate, unsigned int channels, RubberBandOptions options,
                              double initialTimeRatio, double initialPitchScale);
    void (*destroy)(RubberBandState state);
    void (*set_expected_input_duration)(RubberBandState state, unsigned int samples);
    void (*set_max_process_size)(RubberBandState state, unsigned int samples);
    void (*study)(RubberBandState state, const float *const *input, unsigned int samples, int final);
    void (*process)(RubberBandState state, const float *const *input, unsigned int samples, int final);
    int (*available)(const RubberBandState state);
    unsigned int (*retrieve)(const RubberBandState state, float *const *output, unsigned int samples);
    const char *load_failure;
} pn_rubberband;

__attribute__((weak)) pn_rubberband pn_rubberband_table = {0};
__attribute__((weak)) pthread_once_t pn_rubberband_once = PTHREAD_ONCE_INIT;
__attribute__((weak)) char pn_rubberband_failure_text[512] = {0};

static inline void pn_rubberband_failed(pn_rubberband *api) {
    const char *error = dlerror();
    snprintf(pn_rubberband_failure_text, sizeof pn_rubberband_failure_text, "%s", error != NULL ? error : "unknown error");
    api->load_failure = pn_rubberband_failure_text;
}

static inline void pn_rubberband_load_once(void) {
    pn_rubberband *api = &pn_rubberband_table;
    void *library = dlopen("librubberband.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        pn_rubberband_failed(api);
        return;
    }
#define PN_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) { pn_rubberband_failed(api); return; }
    PN_SYMBOL(create, "rubberband_new");
    PN_SYMBOL(destroy, "rubberband_delete");
    PN_SYMBOL(set_expected_input_duration, "rubberband_set_expected_input_duration");
    PN_SYMBOL(set_max_process_size, "rubberband_set_max_process_size");
    PN_SYMBOL(study, "rubberband_study");
    PN_SYMBOL(process, "rubberband_process");
    PN_SYMBOL(available, "rubberband_available");
    PN_SYMBOL(retrieve, "rubberband_retrieve");
#undef PN_SYMBOL
}

/// Loads librubberband (once for the life of the process); returns why it failed, NULL on success.
static inline const char *pn_rubberband_load(void) {
    pthread_once(&pn_rubberband_once, pn_rubberband_load_once);
    return pn_rubberband_table.load_failure;
}

static inline RubberBandState rubberband_new(unsigned int sampleRate, unsigned int channels, RubberBandOptions options,
                                             double initialTimeRatio, double initialPitchScale) {
    return pn_rubberband_table.create(sampleRate, channels, options, initialTimeRatio, initialPitchScale);
}
static inline void rubberband_delete(RubberBandState state) { pn_rubberband_table.destroy(state); }
static inline void rubberband_set_expected_input_duration(RubberBandState state, unsigned int samples) {
    pn_rubberband_table.set_expected_input_duration(state, samples);
}
static inline void rubberband_set_max_process_size(RubberBandState state, unsigned int samples) {
    pn_rubberband_table.set_max_process_size(state, samples);
}
static inline void rubberband_study(RubberBandState state, const float *const *input, unsigned int samples, int final) {
    pn_rubberband_table.study(state, input, samples, final);
}
static inline void rubberband_process(RubberBandState state, const float *const *input, unsigned int samples, int final) {
    pn_rubberband_table.process(state, input, samples, final);
}
static inline int rubberband_available(const RubberBandState state) { return pn_rubberband_table.available(state); }
static inline unsigned int rubberband_retrieve(const RubberBandState state, float *const *output, unsigned int samples) {
    return pn_rubberband_table.retrieve(state, output, samples);
}

#endif
