/* libmicrohttpd, opened with dlopen by serve-params alone. Linked, it and what Debian builds it with (gnutls,
 * nettle, gmp, p11-kit, idn2, ...) would be mapped and relocated at every start of every render, which Argo CD runs
 * once per Application refresh, for a server that never runs there; Debian ships no static gnutls, so it cannot be
 * linked statically either. Private to src/params: after this header, MHD_start_daemon(...) goes through the table
 * (the same scheme as git/libgit2.h: a function left out of the list is an undefined reference at link time). */
#ifndef CMP_PARAMS_MHD_H
#define CMP_PARAMS_MHD_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

#define PARAMS_MHD_FUNCTIONS(X) \
    X(MHD_start_daemon) \
    X(MHD_stop_daemon) \
    X(MHD_quiesce_daemon) \
    X(MHD_create_response_from_buffer) \
    X(MHD_add_response_header) \
    X(MHD_queue_response) \
    X(MHD_destroy_response) \
    X(MHD_lookup_connection_value) \
    X(MHD_get_daemon_info) \
    X(MHD_get_connection_info)

typedef struct params_mhd {
#define PARAMS_MHD_SLOT(f) __typeof__(f) *f;
    PARAMS_MHD_FUNCTIONS(PARAMS_MHD_SLOT)
#undef PARAMS_MHD_SLOT
} params_mhd;

extern params_mhd params_mhd_lib;

/* Loads libmicrohttpd.so.12 (the ABI of the headers built against). -1 with fail() naming it and the loader's
 * reason. */
int params_mhd_open(void);

#ifndef PARAMS_MHD_LOADER
#define MHD_start_daemon (params_mhd_lib.MHD_start_daemon)
#define MHD_stop_daemon (params_mhd_lib.MHD_stop_daemon)
#define MHD_quiesce_daemon (params_mhd_lib.MHD_quiesce_daemon)
#define MHD_create_response_from_buffer (params_mhd_lib.MHD_create_response_from_buffer)
#define MHD_add_response_header (params_mhd_lib.MHD_add_response_header)
#define MHD_queue_response (params_mhd_lib.MHD_queue_response)
#define MHD_destroy_response (params_mhd_lib.MHD_destroy_response)
#define MHD_lookup_connection_value (params_mhd_lib.MHD_lookup_connection_value)
#define MHD_get_daemon_info (params_mhd_lib.MHD_get_daemon_info)
#define MHD_get_connection_info (params_mhd_lib.MHD_get_connection_info)
#endif
#endif
