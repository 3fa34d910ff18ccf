/* serve-params: Argo CD's ApplicationSet plugin generator, answered with one element per kpt package of a git
 * repository (see README "One Application per package"). */
#ifndef CMP_PARAMS_PARAMS_H
#define CMP_PARAMS_PARAMS_H
#include "settings/settings.h"
#include "git/git.h"

typedef struct params_opts {
    const char *listen;    /* "HOST:PORT" or "[V6]:PORT" */
    const char *base_path; /* the path part of the ConfigMap's baseUrl ("" or "/x/y") */
    params_settings s;     /* the operator's CMP_PARAMS_* */
    gitsrc_env git;        /* where the fetch cache lives */
    const limits *limits;  /* the operator's CMP_* limits (settings/host.h host_limits): Kptfiles are read under them */
    /* Writes one log line (already escaped, ending in a newline): main's, which alone writes to stderr. Called by
     * one thread at a time. */
    void (*log)(const char *line);
} params_opts;

/* Serves until SIGTERM or SIGINT, then drains the requests in flight (at most the time budget and 5 s more) and
 * returns 0. -1 with fail() when it cannot start (token file, allowed prefixes, address, libmicrohttpd). */
int params_serve(const params_opts *o);
#endif
