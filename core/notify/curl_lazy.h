/* curl_lazy: libcurl opened with dlopen on its first use, so that a command
 * sending no webhook never maps it and the libraries it brings (gnutls,
 * krb5, ldap, ssh2, ...: docs/performance.md, start-up). webhook.c
 * includes this header instead of <curl/curl.h>: each curl_* function it
 * calls is a macro naming the table's entry, as SQLite's sqlite3ext.h does
 * for an extension; the entries take their types from curl's own
 * declarations, so calls stay checked (all but the variadic arguments of
 * curl_easy_setopt and curl_easy_getinfo, which curl's type-checking
 * macros checked before). */
#ifndef RUNNER_CURL_LAZY_H
#define RUNNER_CURL_LAZY_H

#include <curl/curl.h>

/* The libcurl soname opened; RUNNER_LIBCURL names another file (tests). */
#define CURL_LAZY_SONAME "libcurl.so.4"

/* X(entry, curl's name): every libcurl function webhook.c calls. */
#define CURL_LAZY_FUNCTIONS(X)                                                                     \
    X(global_init, curl_global_init)                                                               \
    X(easy_init, curl_easy_init)                                                                   \
    X(easy_reset, curl_easy_reset)                                                                 \
    X(easy_setopt, curl_easy_setopt)                                                               \
    X(easy_perform, curl_easy_perform)                                                             \
    X(easy_getinfo, curl_easy_getinfo)                                                             \
    X(easy_strerror, curl_easy_strerror)                                                           \
    X(easy_cleanup, curl_easy_cleanup)                                                             \
    X(slist_append, curl_slist_append)                                                             \
    X(slist_free_all, curl_slist_free_all)                                                         \
    X(url, curl_url)                                                                               \
    X(url_set, curl_url_set)                                                                       \
    X(url_get, curl_url_get)                                                                       \
    X(url_cleanup, curl_url_cleanup)                                                               \
    X(free, curl_free)

#define CURL_LAZY_ENTRY(entry, name) __typeof__(&name) entry;
typedef struct curl_lazy_api {
    CURL_LAZY_FUNCTIONS(CURL_LAZY_ENTRY)
} curl_lazy_api;
#undef CURL_LAZY_ENTRY

/* Filled by curl_lazy_load; all NULL until it succeeds. */
extern curl_lazy_api curl_lazy;

/* Opens libcurl and fills curl_lazy, once per process (thread-safe); later
 * calls give the first call's outcome. Returns 0, or -1 and *err (malloc'd,
 * the caller frees): one line saying which library is missing and how to
 * install it. */
int curl_lazy_load(char **err);

#ifndef CURL_LAZY_NO_MACROS
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init curl_lazy.global_init
#define curl_easy_init curl_lazy.easy_init
#define curl_easy_reset curl_lazy.easy_reset
#define curl_easy_setopt curl_lazy.easy_setopt
#define curl_easy_perform curl_lazy.easy_perform
#define curl_easy_getinfo curl_lazy.easy_getinfo
#define curl_easy_strerror curl_lazy.easy_strerror
#define curl_easy_cleanup curl_lazy.easy_cleanup
#define curl_slist_append curl_lazy.slist_append
#define curl_slist_free_all curl_lazy.slist_free_all
#define curl_url curl_lazy.url
#define curl_url_set curl_lazy.url_set
#define curl_url_get curl_lazy.url_get
#define curl_url_cleanup curl_lazy.url_cleanup
#define curl_free curl_lazy.free
#endif

#endif
