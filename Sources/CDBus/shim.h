// libdbus for Swift: the reference D-Bus library, for BlueZ's API on the system bus
// (Bluetooth heart-rate straps).
//
// libdbus is loaded when the first bus connection is made (dlopen), not linked: linked, it
// and what it needs (libsystemd, libgcrypt, liblzma, libzstd, liblz4, libcap, …) were mapped
// and relocated at every start, ~1 MiB resident in a daemon without a strap. Its headers are
// not included either (they live outside the default include path, and pkg-config's flags
// would link it): the few types and functions Pacenote uses are declared here, as libdbus 1.x
// defines them (its ABI, soname libdbus-1.so.3, has not changed since 2006).
// `DBusDeclarationsTests` compiles the real headers and checks the layouts against these.
//
// Each function below has libdbus's name and calls the one loaded, so Swift calls them as
// it would call libdbus. `pn_dbus_load` must have succeeded first.
#ifndef PACENOTE_CDBUS_SHIM_H
#define PACENOTE_CDBUS_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t dbus_bool_t;
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;

/// dbus-errors.h
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

/// dbus-message.h: filled by libdbus, allocated by the caller.
typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    uint32_t dummy3;
    int dummy4, dummy5, dummy6, dummy7, dummy8, dummy9, dummy10, dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

/// dbus-shared.h
typedef enum { DBUS_BUS_SESSION, DBUS_BUS_SYSTEM, DBUS_BUS_STARTER } DBusBusType;

/// dbus-protocol.h
#define DBUS_MESSAGE_TYPE_SIGNAL 4

/// The libdbus functions Pacenote calls, looked up in the loaded library.
typedef struct pn_dbus {
    dbus_bool_t (*threads_init_default)(void);
    void (*error_init)(DBusError *error);
    void (*error_free)(DBusError *error);
    dbus_bool_t (*error_is_set)(const DBusError *error);
    DBusConnection *(*bus_get_private)(DBusBusType type, DBusError *error);
    void (*bus_add_match)(DBusConnection *connection, const char *rule, DBusError *error);
    void (*connection_set_exit_on_disconnect)(DBusConnection *connection, dbus_bool_t exit_on_disconnect);
    void (*connection_close)(DBusConnection *connection);
    void (*connection_unref)(DBusConnection *connection);
    dbus_bool_t (*connection_get_is_connected)(DBusConnection *connection);
    DBusMessage *(*connection_send_with_reply_and_block)(DBusConnection *connection, DBusMessage *message,
                                                         int timeout_milliseconds, DBusError *error);
    DBusMessage *(*connection_pop_message)(DBusConnection *connection);
    dbus_bool_t (*connection_read_write)(DBusConnection *connection, int timeout_milliseconds);
    DBusMessage *(*message_new_method_call)(const char *destination, const char *path, const char *iface,
                                            const char *method);
    void (*message_unref)(DBusMessage *message);
    int (*message_get_type)(DBusMessage *message);
    const char *(*message_get_path)(DBusMessage *message);
    const char *(*message_get_interface)(DBusMessage *message);
    const char *(*message_get_member)(DBusMessage *message);
    dbus_bool_t (*message_iter_init)(DBusMessage *message, DBusMessageIter *iter);
    void (*message_iter_init_append)(DBusMessage *message, DBusMessageIter *iter);
    dbus_bool_t (*message_iter_next)(DBusMessageIter *iter);
    int (*message_iter_get_arg_type)(DBusMessageIter *iter);
    int (*message_iter_get_element_type)(DBusMessageIter *iter);
    void (*message_iter_recurse)(DBusMessageIter *iter, DBusMessageIter *sub);
    void (*message_iter_get_basic)(DBusMessageIter *iter, void *value);
    dbus_bool_t (*message_iter_append_basic)(DBusMessageIter *iter, int type, const void *value);
    dbus_bool_t (*message_iter_open_container)(DBusMessageIter *iter, int type, const char *contained_signature,
                                               DBusMessageIter *sub);
    dbus_bool_t (*message_iter_close_container)(DBusMessageIter *iter, DBusMessageIter *sub);
    /// dlerror()'s text if loading failed.
    const char *load_failure;
} pn_dbus;

/// The table, filled once by `pn_dbus_load`. Weak definitions, so every module that emits
/// these functions (an importer, or one that Swift inlined them into) shares one table.
__attribute__((weak)) pn_dbus pn_dbus_table = {0};
__attribute__((weak)) pthread_once_t pn_dbus_once = PTHREAD_ONCE_INIT;
/// Why loading failed: dlerror()'s text, copied (glibc frees it at the thread's next dl call).
__attribute__((weak)) char pn_dbus_failure_text[512] = {0};

static inline void pn_dbus_failed(pn_dbus *api) {
    const char *error = dlerror();
    snprintf(pn_dbus_failure_text, sizeof pn_dbus_failure_text, "%s", error != NULL ? error : "unknown error");
    api->load_failure = pn_dbus_failure_text;
}

static inline pn_dbus *pn_dbus_api(void) { return &pn_dbus_table; }

static inline void pn_dbus_load_once(void) {
    pn_dbus *api = pn_dbus_api();
    void *library = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        pn_dbus_failed(api);
        return;
    }
#define PN_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) { pn_dbus_failed(api); return; }
    PN_SYMBOL(threads_init_default, "dbus_threads_init_default");
    PN_SYMBOL(error_init, "dbus_error_init");
    PN_SYMBOL(error_free, "dbus_error_free");
    PN_SYMBOL(error_is_set, "dbus_error_is_set");
    PN_SYMBOL(bus_get_private, "dbus_bus_get_private");
    PN_SYMBOL(bus_add_match, "dbus_bus_add_match");
    PN_SYMBOL(connection_set_exit_on_disconnect, "dbus_connection_set_exit_on_disconnect");
    PN_SYMBOL(connection_close, "dbus_connection_close");
    PN_SYMBOL(connection_unref, "dbus_connection_unref");
    PN_SYMBOL(connection_get_is_connected, "dbus_connection_get_is_connected");
    PN_SYMBOL(connection_send_with_reply_and_block, "dbus_connection_send_with_reply_and_block");
    PN_SYMBOL(connection_pop_message, "dbus_connection_pop_message");
    PN_SYMBOL(connection_read_write, "dbus_connection_read_write");
    PN_SYMBOL(message_new_method_call, "dbus_message_new_method_call");
    PN_SYMBOL(message_unref, "dbus_message_unref");
    PN_SYMBOL(message_get_type, "dbus_message_get_type");
    PN_SYMBOL(message_get_path, "dbus_message_get_path");
    PN_SYMBOL(message_get_interface, "dbus_message_get_interface");
    PN_SYMBOL(message_get_member, "dbus_message_get_member");
    PN_SYMBOL(message_iter_init, "dbus_message_iter_init");
    PN_SYMBOL(message_iter_init_append, "dbus_message_iter_init_append");
    PN_SYMBOL(message_iter_next, "dbus_message_iter_next");
    PN_SYMBOL(message_iter_get_arg_type, "dbus_message_iter_get_arg_type");
    PN_SYMBOL(message_iter_get_element_type, "dbus_message_iter_get_element_type");
    PN_SYMBOL(message_iter_recurse, "dbus_message_iter_recurse");
    PN_SYMBOL(message_iter_get_basic, "dbus_message_iter_get_basic");
    PN_SYMBOL(message_iter_append_basic, "dbus_message_iter_append_basic");
    PN_SYMBOL(message_iter_open_container, "dbus_message_iter_open_container");
    PN_SYMBOL(message_iter_close_container, "dbus_message_iter_close_container");
#undef PN_SYMBOL
}

/// Loads libdbus (once, for the life of the process: a failure stays until a restart);
/// returns why it failed, NULL on success.
static inline const char *pn_dbus_load(void) {
    pthread_once(&pn_dbus_once, pn_dbus_load_once);
    return pn_dbus_api()->load_failure;
}

static inline dbus_bool_t dbus_threads_init_default(void) { return pn_dbus_api()->threads_init_default(); }
static inline void dbus_error_init(DBusError *error) { pn_dbus_api()->error_init(error); }
static inline void dbus_error_free(DBusError *error) { pn_dbus_api()->error_free(error); }
static inline dbus_bool_t dbus_error_is_set(const DBusError *error) { return pn_dbus_api()->error_is_set(error); }
static inline DBusConnection *dbus_bus_get_private(DBusBusType type, DBusError *error) {
    return pn_dbus_api()->bus_get_private(type, error);
}
static inline void dbus_bus_add_match(DBusConnection *connection, const char *rule, DBusError *error) {
    pn_dbus_api()->bus_add_match(connection, rule, error);
}
static inline void dbus_connection_set_exit_on_disconnect(DBusConnection *connection, dbus_bool_t exit_on_disconnect) {
    pn_dbus_api()->connection_set_exit_on_disconnect(connection, exit_on_disconnect);
}
static inline void dbus_connection_close(DBusConnection *connection) { pn_dbus_api()->connection_close(connection); }
static inline void dbus_connection_unref(DBusConnection *connection) { pn_dbus_api()->connection_unref(connection); }
static inline dbus_bool_t dbus_connection_get_is_connected(DBusConnection *connection) {
    return pn_dbus_api()->connection_get_is_connected(connection);
}
static inline DBusMessage *dbus_connection_send_with_reply_and_block(DBusConnection *connection, DBusMessage *message,
                                                                     int timeout_milliseconds, DBusError *error) {
    return pn_dbus_api()->connection_send_with_reply_and_block(connection, message, timeout_milliseconds, error);
}
static inline DBusMessage *dbus_connection_pop_message(DBusConnection *connection) {
    return pn_dbus_api()->connection_pop_message(connection);
}
static inline dbus_bool_t dbus_connection_read_write(DBusConnection *connection, int timeout_milliseconds) {
    return pn_dbus_api()->connection_read_write(connection, timeout_milliseconds);
}
static inline DBusMessage *dbus_message_new_method_call(const char *destination, const char *path, const char *iface,
                                                        const char *method) {
    return pn_dbus_api()->message_new_method_call(destination, path, iface, method);
}
static inline void dbus_message_unref(DBusMessage *message) { pn_dbus_api()->message_unref(message); }
static inline int dbus_message_get_type(DBusMessage *message) { return pn_dbus_api()->message_get_type(message); }
static inline const char *dbus_message_get_path(DBusMessage *message) { return pn_dbus_api()->message_get_path(message); }
static inline const char *dbus_message_get_interface(DBusMessage *message) {
    return pn_dbus_api()->message_get_interface(message);
}
static inline const char *dbus_message_get_member(DBusMessage *message) { return pn_dbus_api()->message_get_member(message); }
static inline dbus_bool_t dbus_message_iter_init(DBusMessage *message, DBusMessageIter *iter) {
    return pn_dbus_api()->message_iter_init(message, iter);
}
static inline void dbus_message_iter_init_append(DBusMessage *message, DBusMessageIter *iter) {
    pn_dbus_api()->message_iter_init_append(message, iter);
}
static inline dbus_bool_t dbus_message_iter_next(DBusMessageIter *iter) { return pn_dbus_api()->message_iter_next(iter); }
static inline int dbus_message_iter_get_arg_type(DBusMessageIter *iter) {
    return pn_dbus_api()->message_iter_get_arg_type(iter);
}
static inline int dbus_message_iter_get_element_type(DBusMessageIter *iter) {
    return pn_dbus_api()->message_iter_get_element_type(iter);
}
static inline void dbus_message_iter_recurse(DBusMessageIter *iter, DBusMessageIter *sub) {
    pn_dbus_api()->message_iter_recurse(iter, sub);
}
static inline void dbus_message_iter_get_basic(DBusMessageIter *iter, void *value) {
    pn_dbus_api()->message_iter_get_basic(iter, value);
}
static inline dbus_bool_t dbus_message_iter_append_basic(DBusMessageIter *iter, int type, const void *value) {
    return pn_dbus_api()->message_iter_append_basic(iter, type, value);
}
static inline dbus_bool_t dbus_message_iter_open_container(DBusMessageIter *iter, int type, const char *contained_signature,
                                                           DBusMessageIter *sub) {
    return pn_dbus_api()->message_iter_open_container(iter, type, contained_signature, sub);
}
static inline dbus_bool_t dbus_message_iter_close_container(DBusMessageIter *iter, DBusMessageIter *sub) {
    return pn_dbus_api()->message_iter_close_container(iter, sub);
}

#endif
