/* The body of one getparams.execute request, checked: what the ApplicationSet controller sends
 * ({"applicationSetName": ..., "input": {"parameters": {...}}}) and what our generator takes from it. Plain C heap
 * only (see params/json.h). */
#ifndef CMP_PARAMS_REQUEST_H
#define CMP_PARAMS_REQUEST_H
#include <stddef.h>

#define PARAMS_MAX_GLOBS 256       /* entries of paths or exclude */
#define PARAMS_MAX_GLOB_BYTES 1024 /* one glob */
#define PARAMS_MAX_SELECTOR 64     /* labelSelector entries */
#define PARAMS_MAX_TEXT 4096       /* repoURL, revision, a selector key or value */

typedef struct params_request {
    char *appset_name, *appset_namespace; /* NULL when absent (logs only) */
    char *repo_url, *revision;            /* revision: "HEAD" when absent */
    char **paths, **exclude;              /* paths: {"**"} when absent */
    size_t npaths, nexclude;
    char **sel_keys, **sel_values;
    size_t nsel;
} params_request;

/* 0, or -1 with err naming the field and what is wrong ("input.parameters.paths[1] must be a string, not a
 * number"), for the 400; after -1 there is nothing to free. */
int params_request_parse(const char *body, size_t len, params_request *out, char *err, size_t cap);
void params_request_free(params_request *r);

/* A path glob over '/'-separated directories: '*' and '?' within one segment, "**" a whole segment that matches any
 * number of segments, [abc] [a-z] [!x] classes, '\' escapes. Work is bounded (segments x segments, characters x
 * characters), whatever the pattern. */
int params_glob_match(const char *pattern, const char *path);
/* The same, each step taken from *left: -1 once it is spent (the answer unknown). */
int params_glob_match_steps(const char *pattern, const char *path, long long *left);
#define PARAMS_MATCH_STEPS 16000000LL /* matching one path against all of paths and exclude: tens of ms */
/* Argo CD's SanitizeName (applicationset/utils/template_functions.go): lower case; each code point outside
 * [-a-z0-9.] one '-'; cut to 253 bytes; '-' and '.' trimmed at both ends. Writes into out (cap >= 254). */
void params_sanitize_name(const char *in, char *out, size_t cap);
#endif
