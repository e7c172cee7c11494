// libcurl for Swift: only what Swift cannot call. curl_easy_setopt is variadic, which Swift
// cannot import, so the options one transfer needs are set here, each with its own C type.
//
// libcurl is loaded when the first request is sent (dlopen), not linked: linked, it and what
// it needs (OpenSSL, Kerberos, LDAP, SSH, …) were mapped and relocated at every start, ~3 MiB
// resident in a daemon that sends nothing without `[[forward]]` or friends.
#ifndef PACENOTE_CCURL_SHIM_H
#define PACENOTE_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/// The libcurl functions Pacenote calls, looked up in the loaded library.
typedef struct pn_curl {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
} pn_curl;

/// Loads libcurl 4 and fills `api`; returns dlerror()'s text on failure, NULL on success.
/// The library stays loaded for the life of the process.
static inline const char *pn_curl_load(pn_curl *api) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PN_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return dlerror()
    PN_SYMBOL(global_init, "curl_global_init");
    PN_SYMBOL(easy_init, "curl_easy_init");
    PN_SYMBOL(easy_cleanup, "curl_easy_cleanup");
    PN_SYMBOL(easy_perform, "curl_easy_perform");
    PN_SYMBOL(easy_strerror, "curl_easy_strerror");
    PN_SYMBOL(slist_append, "curl_slist_append");
    PN_SYMBOL(slist_free_all, "curl_slist_free_all");
    PN_SYMBOL(easy_setopt, "curl_easy_setopt");
    PN_SYMBOL(easy_getinfo, "curl_easy_getinfo");
#undef PN_SYMBOL
    return NULL;
}

/// Receives body bytes or one header line; returns how many it took (fewer stops the transfer).
typedef size_t (*pn_curl_sink)(char *data, size_t size, size_t count, void *context);

/// Sets up `handle` for one request. `body` may be NULL (no body); `method` is sent as is.
/// Redirects are not followed (a feed or an API that moves says so with its status).
/// Proxies come from the usual environment variables (http_proxy, https_proxy, no_proxy).
static inline CURLcode pn_curl_prepare(const pn_curl *api, CURL *handle, const char *url, const char *method,
                                       struct curl_slist *headers, const char *body, long body_length,
                                       long timeout_ms, long connect_timeout_ms, const char *user_agent,
                                       pn_curl_sink on_body, pn_curl_sink on_header, void *context,
                                       char *error_buffer) {
    CURLcode rc = CURLE_OK;
#define PN_SET(option, value) if ((rc = api->easy_setopt(handle, option, value)) != CURLE_OK) return rc
    PN_SET(CURLOPT_ERRORBUFFER, error_buffer);
    PN_SET(CURLOPT_URL, url);
    PN_SET(CURLOPT_PROTOCOLS_STR, "http,https");
    PN_SET(CURLOPT_NOSIGNAL, 1L);
    PN_SET(CURLOPT_TIMEOUT_MS, timeout_ms);
    PN_SET(CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    PN_SET(CURLOPT_USERAGENT, user_agent);
    PN_SET(CURLOPT_HTTPHEADER, headers);
    PN_SET(CURLOPT_ACCEPT_ENCODING, "");
    PN_SET(CURLOPT_WRITEFUNCTION, on_body);
    PN_SET(CURLOPT_WRITEDATA, context);
    PN_SET(CURLOPT_HEADERFUNCTION, on_header);
    PN_SET(CURLOPT_HEADERDATA, context);
    if (body != NULL) {
        PN_SET(CURLOPT_POSTFIELDSIZE, body_length);
        PN_SET(CURLOPT_POSTFIELDS, body);
    }
    PN_SET(CURLOPT_CUSTOMREQUEST, method);
    if (body == NULL && method[0] == 'H') PN_SET(CURLOPT_NOBODY, 1L);
#undef PN_SET
    return rc;
}

/// Asks `check` before every connection of the transfer (each address tried, whatever
/// name led to it): libcurl has resolved the name by then, so the address checked is the one
/// connected to. `check` returns CURL_SOCKET_BAD to refuse (libcurl then fails with
/// CURLE_COULDNT_CONNECT), else a socket made with `pn_curl_open_socket`. No proxy is used
/// for such a transfer: through one, the address connected to would be the proxy's.
static inline CURLcode pn_curl_guard(const pn_curl *api, CURL *handle, curl_opensocket_callback check, void *context) {
    CURLcode rc = CURLE_OK;
    if ((rc = api->easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, check)) != CURLE_OK) return rc;
    if ((rc = api->easy_setopt(handle, CURLOPT_OPENSOCKETDATA, context)) != CURLE_OK) return rc;
    return api->easy_setopt(handle, CURLOPT_NOPROXY, "*");
}

/// The address libcurl is about to connect to, as 4 (IPv4) or 16 (IPv6) bytes in `out`;
/// returns how many, 0 for any other family.
static inline int pn_curl_address(const struct curl_sockaddr *address, unsigned char out[16]) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(out, &((const struct sockaddr_in *)&address->addr)->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)&address->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/// The socket libcurl would have made itself, close-on-exec (no child process inherits it).
static inline curl_socket_t pn_curl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

/// The response's status code (0 when none arrived).
static inline long pn_curl_status(const pn_curl *api, CURL *handle) {
    long status = 0;
    api->easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

#endif
