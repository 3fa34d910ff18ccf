/* fuzz_params_request: bytes -> the body of a getparams.execute request (src/params/request.c, json.c) ->
 * params_request_parse; on success, every string of the request through params_sanitize_name (the answer's
 * basenameNormalized), params_glob_match (each path glob against each exclude glob, and against fixed paths),
 * params_allowed (a fixed allow-list), and json_put_string, whose output must parse back to the same string.
 * Checks: no crash; a parsed request has a repoURL and a revision, paths (at least one), globs of 1 to 1024
 * bytes; a sanitized name has only [-a-z0-9.], at most 253 bytes, and neither '-' nor '.' at either end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "params/internal.h"
#include "params/json.h"
#include "params/request.h"

static void check_name(const char *s)
{
    char out[254];
    params_sanitize_name(s, out, sizeof out);
    size_t n = strlen(out);
    if (n > 253)
        fz_die("sanitize", "%zu bytes", n);
    for (size_t i = 0; i < n; i++)
        if (!((out[i] >= 'a' && out[i] <= 'z') || (out[i] >= '0' && out[i] <= '9') || out[i] == '-' || out[i] == '.'))
            fz_die("sanitize", "byte 0x%02x in \"%s\"", (unsigned char)out[i], out);
    if (n && (strchr("-.", out[0]) || strchr("-.", out[n - 1])))
        fz_die("sanitize", "\"%s\" not trimmed", out);
}

static void round_trip(const char *s)
{
    char *o = NULL;
    size_t n = 0, cap = 0;
    if (json_put_string(&o, &n, &cap, SIZE_MAX, s) < 0)
        fz_die("json_put_string", "refused");
    char err[200];
    json *j = json_parse(o, n, err, sizeof err);
    if (!j || j->type != JSON_STRING || strcmp(j->text, s))
        fz_die("json round trip", "%s: %s", o, j ? "differs" : err);
    json_free(j);
    free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static params_allow allow;
    if (!allow.n && params_allow_parse("https://git.example.com/org/, git@host:team/, ssh://h:22/x", &allow) < 0)
        abort();
    params_request r;
    char err[600];
    if (params_request_parse((const char *)data, size, &r, err, sizeof err) < 0) {
        if (!*err)
            fz_die("parse", "an error without a message");
        return 0;
    }
    if (!r.repo_url || !*r.repo_url || !r.revision || !*r.revision || !r.npaths)
        fz_die("parse", "a request without repoURL, revision or paths");
    static const char *const paths[] = {".", "apps/web", "a/b/c/d/e/f", "x", "**", NULL};
    for (size_t i = 0; i < r.npaths + r.nexclude; i++) {
        const char *g = i < r.npaths ? r.paths[i] : r.exclude[i - r.npaths];
        if (!*g || strlen(g) > PARAMS_MAX_GLOB_BYTES)
            fz_die("parse", "a glob of %zu bytes", strlen(g));
        for (const char *const *p = paths; *p; p++)
            params_glob_match(g, *p);
        for (size_t k = 0; k < r.nexclude; k++)
            params_glob_match(g, r.exclude[k]);
        check_name(g);
        round_trip(g);
    }
    params_allowed(&allow, r.repo_url);
    check_name(r.repo_url);
    round_trip(r.repo_url);
    round_trip(r.revision);
    for (size_t i = 0; i < r.nsel; i++) {
        round_trip(r.sel_keys[i]);
        round_trip(r.sel_values[i]);
    }
    params_request_free(&r);
    return 0;
}
