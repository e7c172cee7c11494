// A power cut for one process, as an LD_PRELOAD shim: what the process wrote to a file and
// did not sync is gone when the power goes.
//
// Every write to a regular file whose path contains $POWERCUT_MATCH (pwrite, pwrite64, write,
// ftruncate) first saves the bytes it replaces — an undo record — then writes through, so
// the process reads what it wrote, as it would from the page cache. fsync or fdatasync of a
// file (through any descriptor: records are kept by inode) drops that file's records: its
// data is on disk. When the file $POWERCUT_TRIGGER appears, a thread of the shim takes the
// lock every tracked write holds, puts back every unsynced byte (newest first, then each
// file's length as of its last sync) and ends the process at once with status 99 — what the
// disk would hold after a power cut in which the drive kept every write it was told to sync
// and none other. It models file contents, not directory entries: a file's name is taken as
// durable (SQLite's WAL and database exist before the cuts begin).
//
// Build: cc -shared -fPIC -O1 -o powercut.so powercut.c -ldl -lpthread
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

struct record {
    dev_t dev;
    ino_t ino;
    char path[512];
    off_t offset;       // where the replaced bytes were
    size_t length;      // how many of them existed (within the file's length then)
    unsigned char *old; // their contents
    off_t base_length;  // the file's length before its first unsynced change (first record of a file only)
    int first;          // this record opens the file's unsynced changes
    struct record *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct record *records; // newest first
static const char *match;
static const char *trigger;

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off64_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

static int tracked(int fd, struct stat *info, char *path, size_t size) {
    if (!match || fstat(fd, info) != 0 || !S_ISREG(info->st_mode)) return 0;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, size - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strstr(path, match) != NULL;
}

static int has_records(struct stat *info) {
    for (struct record *r = records; r; r = r->next)
        if (r->dev == info->st_dev && r->ino == info->st_ino) return 1;
    return 0;
}

// Saves what [offset, offset+count) holds now. Called with the lock held.
static void save(int fd, struct stat *info, const char *path, off_t offset, size_t count) {
    struct record *r = calloc(1, sizeof *r);
    r->dev = info->st_dev;
    r->ino = info->st_ino;
    snprintf(r->path, sizeof r->path, "%s", path);
    r->offset = offset;
    r->first = !has_records(info);
    r->base_length = info->st_size;
    if (offset < info->st_size) {
        size_t existing = (size_t)(info->st_size - offset);
        r->length = existing < count ? existing : count;
        r->old = malloc(r->length ? r->length : 1);
        ssize_t got = pread(fd, r->old, r->length, offset);
        r->length = got > 0 ? (size_t)got : 0;
    }
    r->next = records;
    records = r;
}

static void forget(struct stat *info) {
    struct record **p = &records;
    while (*p) {
        struct record *r = *p;
        if (r->dev == info->st_dev && r->ino == info->st_ino) {
            *p = r->next;
            free(r->old);
            free(r);
        } else {
            p = &r->next;
        }
    }
}

static ssize_t tracked_pwrite(int fd, const void *buffer, size_t count, off64_t offset, int wide) {
    struct stat info;
    char path[512];
    pthread_mutex_lock(&lock);
    if (tracked(fd, &info, path, sizeof path)) save(fd, &info, path, offset, count);
    ssize_t n = wide ? real_pwrite64(fd, buffer, count, offset) : real_pwrite(fd, buffer, count, (off_t)offset);
    int saved = errno;
    pthread_mutex_unlock(&lock);
    errno = saved;
    return n;
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) { return tracked_pwrite(fd, buffer, count, offset, 1); }
ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) { return tracked_pwrite(fd, buffer, count, offset, 0); }

ssize_t write(int fd, const void *buffer, size_t count) {
    struct stat info;
    char path[512];
    pthread_mutex_lock(&lock);
    if (tracked(fd, &info, path, sizeof path)) {
        int flags = fcntl(fd, F_GETFL);
        off_t at = (flags & O_APPEND) ? info.st_size : lseek(fd, 0, SEEK_CUR);
        if (at >= 0) save(fd, &info, path, at, count);
    }
    ssize_t n = real_write(fd, buffer, count);
    int saved = errno;
    pthread_mutex_unlock(&lock);
    errno = saved;
    return n;
}

static int truncate_tracked(int fd, off_t length, int wide) {
    struct stat info;
    char path[512];
    pthread_mutex_lock(&lock);
    if (tracked(fd, &info, path, sizeof path)) {
        // Bytes cut off come back on a cut; a longer file goes back to its base length.
        if (length < info.st_size) save(fd, &info, path, length, (size_t)(info.st_size - length));
        else save(fd, &info, path, info.st_size, 0);
    }
    int result = wide ? real_ftruncate64(fd, length) : real_ftruncate(fd, length);
    int saved = errno;
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

int ftruncate(int fd, off_t length) { return truncate_tracked(fd, length, 0); }
int ftruncate64(int fd, off64_t length) { return truncate_tracked(fd, length, 1); }

static int synced(int fd, int data_only) {
    int result = data_only ? real_fdatasync(fd) : real_fsync(fd);
    if (result == 0) {
        struct stat info;
        pthread_mutex_lock(&lock);
        if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) forget(&info);
        pthread_mutex_unlock(&lock);
    }
    return result;
}

int fsync(int fd) { return synced(fd, 0); }
int fdatasync(int fd) { return synced(fd, 1); }

// The cut: every unsynced byte put back, newest first; each file cut to its length at its
// last sync; then the process ends. The lock stays held: no write gets in after.
static void cut(void) {
    pthread_mutex_lock(&lock);
    int restored = 0;
    for (struct record *r = records; r; r = r->next) {
        int fd = open(r->path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat info;
        if (fstat(fd, &info) == 0 && info.st_dev == r->dev && info.st_ino == r->ino) {
            if (r->length > 0) real_pwrite64(fd, r->old, r->length, r->offset);
            if (r->first) real_ftruncate64(fd, r->base_length);
            restored++;
        }
        close(fd);
    }
    char message[128];
    int n = snprintf(message, sizeof message, "powercut: %d unsynced writes undone\n", restored);
    if (n > 0) real_write(2, message, (size_t)n);
    _exit(99);
}

static void *watch(void *unused) {
    (void)unused;
    struct timespec pause = {0, 1000000};
    for (;;) {
        if (access(trigger, F_OK) == 0) cut();
        nanosleep(&pause, NULL);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_write = dlsym(RTLD_NEXT, "write");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    real_ftruncate64 = dlsym(RTLD_NEXT, "ftruncate64");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    match = getenv("POWERCUT_MATCH");
    trigger = getenv("POWERCUT_TRIGGER");
    if (match && trigger) {
        pthread_t thread;
        pthread_create(&thread, NULL, watch, NULL);
        pthread_detach(thread);
    }
}
