#ifndef PACENOTE_SQLITE_CONFIG_SHIM_H
#define PACENOTE_SQLITE_CONFIG_SHIM_H
#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: one wrapper per option used.
/// SQLITE_CONFIG_MEMSTATUS off: SQLite then stops taking a process-wide mutex around every
/// one of its mallocs and frees to keep allocation statistics nobody reads. It must be set
/// before SQLite initialises (before the first connection); later it returns SQLITE_MISUSE.
static inline int pacenote_sqlite_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif
