/* What storing an imported database's rows costs SQLite from bound values (issue 18, point 2).
 *
 * store-floor SOURCE OUT
 *
 * OUT is an empty database of the schema (`pacenote migrate`). Every row of SOURCE's tables
 * that an import stores (the list below, parents first) is read into this process's memory
 * first, untimed. Then, timed, they are stored as Pacenote's import stores rows, at its
 * cheapest: one transaction; each table in its key's order; bound values (of the columns
 * that hold a value in some row: the others keep their default, NULL, as an import leaves a
 * play's heart rate), 64 rows to a prepared `INSERT OR IGNORE` (no statement journal; a row
 * ignored is an error); no triggers; the search index filled from `tracks` in one
 * `INSERT … SELECT`, as the import fills it; the indexes an import sets aside built after
 * with its settings; a last checkpoint. WAL, synchronous=NORMAL, the import's 32 MiB page
 * cache, SQLite's allocation statistics off (as Pacenote sets them). Prints the seconds.
 *
 * Nothing is parsed, looked up or summed while the clock runs: what is left is the binding
 * and storing that any import of these rows through bound statements pays. Built and run
 * by scripts/bench/import-floor.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *TABLES[] = {
    "artists", "albums", "tracks", "track_artists", "plays",
    "rollup_day_track", "rollup_day_artist", "rollup_day_album", "rollup_day_hour", "rollup_day_total",
    "rollup_month_track", "rollup_month_artist", "rollup_month_album", "rollup_month_total",
    "rollup_year_track", "rollup_year_artist", "rollup_year_album", "rollup_year_hour", "rollup_year_total",
    "rollup_track_total", "rollup_artist_total", "rollup_album_total", "rollup_track_first", "rollup_year_charted"};
#define NTABLES (sizeof TABLES / sizeof *TABLES)
#define PER_STATEMENT 64
#define MAX_NAMES 256

/* The same selection as import-floor's DEFERRED and PacenoteStore's DeferredIndexes. */
static const char *DEFERRED =
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE INDEX %' "
    "AND ((tbl_name LIKE 'rollup\\_%' ESCAPE '\\' AND (name LIKE '%\\_top' ESCAPE '\\' OR name LIKE '%\\_by\\_time' ESCAPE '\\')) "
    "OR name IN ('tracks_artist', 'tracks_album')) ORDER BY name";

typedef struct { int type, len; union { int64_t i; double d; char *s; } v; } Value;
typedef struct {
    const char *name;
    int columns;
    size_t rows;
    Value *values;
    char **names;  /* the columns' names */
    int *used;     /* whether the column holds a value in some row: only those are bound */
} Table;

static void die(sqlite3 *db, const char *what) {
    fprintf(stderr, "store-floor: %s%s%s\n", what, db ? ": " : "", db ? sqlite3_errmsg(db) : "");
    exit(1);
}

static void *checked(void *p) {
    if (!p) die(NULL, "out of memory");
    return p;
}

static void exec(sqlite3 *db, const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "store-floor: %s: %s\n", sql, error);
        exit(1);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Every row of `sql`'s result, each value copied. */
static void load(sqlite3 *db, const char *sql, Table *table) {
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) die(db, sql);
    table->columns = sqlite3_column_count(stmt);
    table->names = checked(malloc(table->columns * sizeof(char *)));
    table->used = checked(calloc(table->columns, sizeof(int)));
    for (int c = 0; c < table->columns; c++) table->names[c] = checked(strdup(sqlite3_column_name(stmt, c)));
    size_t capacity = 1024;
    table->rows = 0;
    table->values = checked(malloc(capacity * table->columns * sizeof(Value)));
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (table->rows == capacity) {
            capacity *= 2;
            table->values = checked(realloc(table->values, capacity * table->columns * sizeof(Value)));
        }
        Value *row = table->values + table->rows * table->columns;
        for (int c = 0; c < table->columns; c++) {
            Value *v = row + c;
            v->type = sqlite3_column_type(stmt, c);
            if (v->type != SQLITE_NULL) table->used[c] = 1;
            switch (v->type) {
            case SQLITE_INTEGER: v->v.i = sqlite3_column_int64(stmt, c); break;
            case SQLITE_FLOAT: v->v.d = sqlite3_column_double(stmt, c); break;
            case SQLITE_TEXT: case SQLITE_BLOB: {
                const void *bytes = v->type == SQLITE_TEXT ? (const void *)sqlite3_column_text(stmt, c) : sqlite3_column_blob(stmt, c);
                v->len = sqlite3_column_bytes(stmt, c);
                v->v.s = checked(malloc(v->len + 1));
                if (v->len) memcpy(v->v.s, bytes, v->len);
                break;
            }
            default: break;
            }
        }
        table->rows++;
    }
    if (rc != SQLITE_DONE) die(db, sql);
    sqlite3_finalize(stmt);
}

/* INSERT OR IGNORE INTO into (the columns used) VALUES (?, …), … with `rows` rows. */
static sqlite3_stmt *insert(sqlite3 *db, const char *into, const Table *table, int rows) {
    int columns = 0;
    size_t size = strlen(into) + 64;
    for (int c = 0; c < table->columns; c++) if (table->used[c]) { columns++; size += strlen(table->names[c]) + 2; }
    size += (size_t)rows * (columns * 2 + 4);
    char *sql = checked(malloc(size)), *p = sql;
    p += sprintf(p, "INSERT OR IGNORE INTO %s (", into);
    for (int c = 0, first = 1; c < table->columns; c++) {
        if (!table->used[c]) continue;
        p += sprintf(p, first ? "%s" : ", %s", table->names[c]);
        first = 0;
    }
    p += sprintf(p, ") VALUES ");
    for (int r = 0; r < rows; r++) {
        *p++ = r ? ',' : ' ';
        *p++ = '(';
        for (int c = 0; c < columns; c++) { if (c) *p++ = ','; *p++ = '?'; }
        *p++ = ')';
    }
    *p = 0;
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) die(db, sql);
    free(sql);
    return stmt;
}

static void bind(sqlite3_stmt *stmt, int at, const Value *v) {
    switch (v->type) {
    case SQLITE_INTEGER: sqlite3_bind_int64(stmt, at, v->v.i); break;
    case SQLITE_FLOAT: sqlite3_bind_double(stmt, at, v->v.d); break;
    case SQLITE_TEXT: sqlite3_bind_text(stmt, at, v->v.s, v->len, SQLITE_STATIC); break;
    case SQLITE_BLOB: sqlite3_bind_blob(stmt, at, v->v.s, v->len, SQLITE_STATIC); break;
    default: sqlite3_bind_null(stmt, at); break;
    }
}

static void step(sqlite3 *db, sqlite3_stmt *stmt, const char *into, int rows) {
    if (sqlite3_step(stmt) != SQLITE_DONE) die(db, into);
    if (sqlite3_changes(db) != rows) die(NULL, "a row was ignored (a constraint broken)");
    sqlite3_reset(stmt);
}

static void store(sqlite3 *db, const Table *table) {
    if (table->rows == 0) return;
    sqlite3_stmt *many = insert(db, table->name, table, PER_STATEMENT), *one = insert(db, table->name, table, 1);
    size_t row = 0;
    for (; row + PER_STATEMENT <= table->rows; row += PER_STATEMENT) {
        int at = 1;
        for (size_t r = row; r < row + PER_STATEMENT; r++) {
            const Value *v = table->values + r * table->columns;
            for (int c = 0; c < table->columns; c++) if (table->used[c]) bind(many, at++, v + c);
        }
        step(db, many, table->name, PER_STATEMENT);
    }
    for (; row < table->rows; row++) {
        const Value *v = table->values + row * table->columns;
        int at = 1;
        for (int c = 0; c < table->columns; c++) if (table->used[c]) bind(one, at++, v + c);
        step(db, one, table->name, 1);
    }
    sqlite3_finalize(many);
    sqlite3_finalize(one);
}

/* The first column of every row of `sql`, copied; at most MAX_NAMES. */
static int strings(sqlite3 *db, const char *sql, int column, char **out) {
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) die(db, sql);
    int n = 0, rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (n == MAX_NAMES) die(NULL, "too many indexes or triggers");
        out[n++] = checked(strdup((const char *)sqlite3_column_text(stmt, column)));
    }
    if (rc != SQLITE_DONE) die(db, sql);
    sqlite3_finalize(stmt);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: store-floor SOURCE OUT (OUT: an empty database of the schema)\n"); return 2; }
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3 *source, *db;
    if (sqlite3_open_v2(argv[1], &source, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) die(source, argv[1]);
    Table tables[NTABLES];
    char sql[512];
    for (size_t t = 0; t < NTABLES; t++) {
        tables[t].name = TABLES[t];
        snprintf(sql, sizeof sql, "SELECT * FROM %s", TABLES[t]);
        load(source, sql, &tables[t]);
    }
    sqlite3_close(source);

    if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) die(db, argv[2]);
    exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -32768");
    char *names[MAX_NAMES], *deferred[MAX_NAMES], *triggers[MAX_NAMES];
    int ndeferred = strings(db, DEFERRED, 0, names);
    strings(db, DEFERRED, 1, deferred);
    int ntriggers = strings(db, "SELECT name FROM sqlite_master WHERE type = 'trigger'", 0, triggers);
    for (int i = 0; i < ndeferred; i++) {
        snprintf(sql, sizeof sql, "DROP INDEX %s", names[i]);
        exec(db, sql);
    }
    for (int i = 0; i < ntriggers; i++) {
        snprintf(sql, sizeof sql, "DROP TRIGGER %s", triggers[i]);
        exec(db, sql);
    }

    double start = now();
    exec(db, "BEGIN");
    for (size_t t = 0; t < NTABLES; t++) store(db, &tables[t]);
    exec(db, "INSERT INTO tracks_fts (rowid, title, artist, album) SELECT id, title, artist, album FROM tracks");
    exec(db, "COMMIT");
    /* As the import builds them: a sort in a temporary file, a 2 MiB cache, one helper thread. */
    exec(db, "PRAGMA temp_store = FILE; PRAGMA cache_size = -2048; PRAGMA threads = 1");
    for (int i = 0; i < ndeferred; i++) exec(db, deferred[i]);
    exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    printf("%.3f\n", now() - start);
    sqlite3_close(db);
    return 0;
}
