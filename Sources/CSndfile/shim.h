// libsndfile for Swift: decoding the song to stretch and encoding the copy as FLAC. PacenoteTempo
// is the only importer.
//
// libsndfile is loaded when the first song is rendered (dlopen), not linked: linked, it and what
// it needs (libFLAC, libvorbis, libopus, libmpg123, libmp3lame, …) were mapped and relocated at
// every start, ~0.9 MiB resident in a daemon that never renders. Its header is not included
// either (pkg-config's flags would link it): the types, constants and functions used are
// declared here as libsndfile 1.x defines them (soname libsndfile.so.1).
// `TempoDeclarationsTests` compiles the real header and checks these against it.
// Each function below has libsndfile's name and calls the one loaded; `pn_sndfile_load` first.
#ifndef PACENOTE_CSNDFILE_SHIM_H
#define PACENOTE_CSNDFILE_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

typedef int64_t sf_count_t;
typedef struct sf_private_tag SNDFILE;

struct SF_INFO {
    sf_count_t frames;
    int samplerate;
    int channels;
    int format;
    int sections;
    int seekable;
};
typedef struct SF_INFO SF_INFO;

enum { SF_FORMAT_FLAC = 0x170000, SF_FORMAT_PCM_16 = 0x0002 };
enum { SFC_SET_CLIPPING = 0x10C0 };
enum { SF_STR_TITLE = 0x01, SF_STR_ARTIST = 0x04, SF_STR_ALBUM = 0x07 };
enum { SF_FALSE = 0, SF_TRUE = 1, SFM_READ = 0x10, SFM_WRITE = 0x20 };

typedef struct pn_sndfile {
    SNDFILE *(*open)(const char *path, int mode, SF_INFO *info);
    SNDFILE *(*open_fd)(int fd, int mode, SF_INFO *info, int close_desc);
    int (*format_check)(const SF_INFO *info);
    int (*command)(SNDFILE *sndfile, int command, void *data, int datasize);
    int (*close)(SNDFILE *sndfile);
    const char *(*strerror)(SNDFILE *sndfile);
    const char *(*error_number)(int errnum);
    int (*error)(SNDFILE *sndfile);
    sf_count_t (*readf_float)(SNDFILE *sndfile, float *ptr, sf_count_t frames);
    sf_count_t (*writef_float)(SNDFILE *sndfile, const float *ptr, sf_count_t frames);
    sf_count_t (*seek)(SNDFILE *sndfile, sf_count_t frames, int whence);
    int (*set_string)(SNDFILE *sndfile, int str_type, const char *str);
    const char *load_failure;
} pn_sndfile;

__attribute__((weak)) pn_sndfile pn_sndfile_table = {0};
__attribute__((weak)) pthread_once_t pn_sndfile_once = PTHREAD_ONCE_INIT;
__attribute__((weak)) char pn_sndfile_failure_text[512] = {0};

static inline void pn_sndfile_failed(pn_sndfile *api) {
    const char *error = dlerror();
    snprintf(pn_sndfile_failure_text, sizeof pn_sndfile_failure_text, "%s", error != NULL ? error : "unknown error");
    api->load_failure = pn_sndfile_failure_text;
}

static inline void pn_sndfile_load_once(void) {
    pn_sndfile *api = &pn_sndfile_table;
    void *library = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        pn_sndfile_failed(api);
        return;
    }
#define PN_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) { pn_sndfile_failed(api); return; }
    PN_SYMBOL(open, "sf_open");
    PN_SYMBOL(open_fd, "sf_open_fd");
    PN_SYMBOL(format_check, "sf_format_check");
    PN_SYMBOL(command, "sf_command");
    PN_SYMBOL(close, "sf_close");
    PN_SYMBOL(strerror, "sf_strerror");
    PN_SYMBOL(error_number, "sf_error_number");
    PN_SYMBOL(error, "sf_error");
    PN_SYMBOL(readf_float, "sf_readf_float");
    PN_SYMBOL(writef_float, "sf_writef_float");
    PN_SYMBOL(seek, "sf_seek");
    PN_SYMBOL(set_string, "sf_set_string");
#undef PN_SYMBOL
}

/// Loads libsndfile (once for the life of the process); returns why it failed, NULL on success.
static inline const char *pn_sndfile_load(void) {
    pthread_once(&pn_sndfile_once, pn_sndfile_load_once);
    return pn_sndfile_table.load_failure;
}

static inline SNDFILE *sf_open(const char *path, int mode, SF_INFO *info) { return pn_sndfile_table.open(path, mode, info); }
static inline SNDFILE *sf_open_fd(int fd, int mode, SF_INFO *info, int close_desc) {
    return pn_sndfile_table.open_fd(fd, mode, info, close_desc);
}
static inline int sf_format_check(const SF_INFO *info) { return pn_sndfile_table.format_check(info); }
static inline int sf_command(SNDFILE *sndfile, int command, void *data, int datasize) {
    return pn_sndfile_table.command(sndfile, command, data, datasize);
}
static inline int sf_close(SNDFILE *sndfile) { return pn_sndfile_table.close(sndfile); }
static inline const char *sf_strerror(SNDFILE *sndfile) { return pn_sndfile_table.strerror(sndfile); }
static inline const char *sf_error_number(int errnum) { return pn_sndfile_table.error_number(errnum); }
static inline int sf_error(SNDFILE *sndfile) { return pn_sndfile_table.error(sndfile); }
static inline sf_count_t sf_readf_float(SNDFILE *sndfile, float *ptr, sf_count_t frames) {
    return pn_sndfile_table.readf_float(sndfile, ptr, frames);
}
static inline sf_count_t sf_writef_float(SNDFILE *sndfile, const float *ptr, sf_count_t frames) {
    return pn_sndfile_table.writef_float(sndfile, ptr, frames);
}
static inline sf_count_t sf_seek(SNDFILE *sndfile, sf_count_t frames, int whence) { return pn_sndfile_table.seek(sndfile, frames, whence); }
static inline int sf_set_string(SNDFILE *sndfile, int str_type, const char *str) {
    return pn_sndfile_table.set_string(sndfile, str_type, str);
}

#endif
