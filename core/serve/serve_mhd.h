/* serve_mhd: libmicrohttpd opened with dlopen when `runner serve` starts, so
 * that no other command maps it and the libraries it brings (gnutls and
 * its chain; docs/performance.md, start-up). The serve files include this
 * header (through serve_int.h) instead of <microhttpd.h>: each MHD_*
 * function they call is a macro naming the table's entry, as SQLite's
 * sqlite3ext.h does for an extension; the entries take their types from
 * libmicrohttpd's own declarations, so every call stays checked. */
#ifndef RUNNER_SERVE_MHD_H
#define RUNNER_SERVE_MHD_H

#include <microhttpd.h>

/* The libmicrohttpd soname opened; RUNNER_LIBMICROHTTPD names another file
 * (tests). */
#define SERVE_MHD_SONAME "libmicrohttpd.so.12"

/* X(entry, libmicrohttpd's name): every function the serve files call. */
#define SERVE_MHD_FUNCTIONS(X)                                                                     \
    X(start_daemon, MHD_start_daemon)                                                              \
    X(stop_daemon, MHD_stop_daemon)                                                                \
    X(get_daemon_info, MHD_get_daemon_info)                                                        \
    X(get_connection_info, MHD_get_connection_info)                                                \
    X(get_connection_values, MHD_get_connection_values)                                            \
    X(lookup_connection_value, MHD_lookup_connection_value)                                        \
    X(create_response_from_buffer, MHD_create_response_from_buffer)                                \
    X(create_response_from_fd, MHD_create_response_from_fd)                                        \
    X(add_response_header, MHD_add_response_header)                                                \
    X(queue_response, MHD_queue_response)                                                          \
    X(destroy_response, MHD_destroy_response)

#define SERVE_MHD_ENTRY(entry, name) __typeof__(&name) entry;
typedef struct serve_mhd_api {
    SERVE_MHD_FUNCTIONS(SERVE_MHD_ENTRY)
} serve_mhd_api;
#undef SERVE_MHD_ENTRY

/* Filled by serve_mhd_load; all NULL until it succeeds. */
extern serve_mhd_api serve_mhd;

/* Opens libmicrohttpd and fills serve_mhd, once per process; later calls
 * give the first call's outcome. serve_run calls it before anything else
 * of libmicrohttpd. Returns 0, or -1 and *err (malloc'd, the caller frees):
 * one line saying which library is missing and how to install it. */
int serve_mhd_load(char **err);

#ifndef SERVE_MHD_NO_MACROS
#define MHD_start_daemon serve_mhd.start_daemon
#define MHD_stop_daemon serve_mhd.stop_daemon
#define MHD_get_daemon_info serve_mhd.get_daemon_info
#define MHD_get_connection_info serve_mhd.get_connection_info
#define MHD_get_connection_values serve_mhd.get_connection_values
#define MHD_lookup_connection_value serve_mhd.lookup_connection_value
#define MHD_create_response_from_buffer serve_mhd.create_response_from_buffer
#define MHD_create_response_from_fd serve_mhd.create_response_from_fd
#define MHD_add_response_header serve_mhd.add_response_header
#define MHD_queue_response serve_mhd.queue_response
#define MHD_destroy_response serve_mhd.destroy_response
#endif

#endif
