/* Shared between the files of src/params. */
#ifndef CMP_PARAMS_INTERNAL_H
#define CMP_PARAMS_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>

#include "params/params.h"
#include "params/request.h"

#define PARAMS_MAX_BODY ((size_t)1 << 20)     /* a request body */
#define PARAMS_MAX_ANSWER ((size_t)4 << 20)   /* an answer: past it, 500, never a shortened list */
#define PARAMS_MAX_KPTFILE ((size_t)1 << 20)  /* one Kptfile */
#define PARAMS_MAX_LISTING ((size_t)64 << 20) /* the elements of one listing, before labelSelector: past it, 500 */
#define PARAMS_MAX_DEPTH 64                   /* directories below the repository root */
#define PARAMS_MAX_ENTRIES ((size_t)2000000)  /* files and directories walked in one tree */

/* The repository allow-list: the operator's prefixes, checked at start. */
typedef struct params_allow {
    char **prefixes;
    size_t n;
} params_allow;
/* Splits CMP_PARAMS_ALLOWED_REPOS; -1 with fail() for an empty list or a prefix that is a local path or file://. */
int params_allow_parse(const char *text, params_allow *out);
void params_allow_free(params_allow *a);
/* Whether url may be read: a remote URL without "..", controls, spaces or percent-encoded dots and slashes, that
 * starts with a prefix at a boundary (the prefix ends in '/' or ':', or the url goes on with '/' or ends). Thread-safe. */
bool params_allowed(const params_allow *a, const char *url);

/* The answer to one request, computed under the server's one work lock (the fetch cache, libgit2, the loader and
 * the diagnostics record are the process's). arrival_ns: when the request arrived (CLOCK_MONOTONIC), so that a fetch
 * that began after it serves it too; deadline_ms: the budget's end. Returns the HTTP status; *body (malloc'd) is
 * the answer or the message. */
int params_generate(const params_opts *o, const params_request *r, long long arrival_ns, long long deadline_ms,
                    char **body, size_t *len, int *packages);

long long params_now_ns(void);
#endif
