// libmicrohttpd for Swift. Only what Swift cannot call directly is wrapped here;
// everything else is used straight from <microhttpd.h>.
#ifndef PACENOTE_CMICROHTTPD_SHIM_H
#define PACENOTE_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Receives one formatted libmicrohttpd error line.
typedef void (*pn_mhd_log_fn)(void *cls, const char *message);

/// Why: MHD_OPTION_EXTERNAL_LOGGER hands out a printf format and a va_list, which Swift
/// cannot format. This formats it in C and forwards one finished line.
static inline void pn_mhd_log_trampoline(void *cls, const char *fmt, va_list ap) {
    void **pair = (void **)cls;
    pn_mhd_log_fn fn = (pn_mhd_log_fn)pair[0];
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    fn(pair[1], line);
}

/// Why: MHD_start_daemon is variadic, which Swift cannot import. This passes the options
/// Pacenote uses on an already-listening socket (so bind errors are reported by us, with errno).
/// `log_pair` must point at two pointers { pn_mhd_log_fn, context } that outlive the daemon.
static inline struct MHD_Daemon *pn_mhd_start(
    unsigned int flags,
    int listen_fd,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int connection_limit,
    unsigned int connection_timeout_s,
    size_t connection_memory_limit,
    unsigned int thread_pool_size,
    void **log_pair)
{
    return MHD_start_daemon(
        flags, 0, accept_policy, accept_policy_cls, handler, handler_cls,
        /* The logger must come first, or earlier options log through MHD's own. */
        MHD_OPTION_EXTERNAL_LOGGER, pn_mhd_log_trampoline, (void *)log_pair,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_END);
}

/// Why: MHD_get_connection_info is variadic. Copies the client's address into `out`;
/// returns 0 when there is none.
static inline int pn_mhd_client_address(struct MHD_Connection *connection, struct sockaddr_storage *out) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    size_t length = info->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memcpy(out, info->client_addr, length);
    return 1;
}

/// Why: MHD_get_connection_info is variadic. The connection's socket, or -1.
static inline int pn_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

#endif
