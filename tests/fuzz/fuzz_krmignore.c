/* fuzz_krmignore: bytes -> a .krmignore text and paths -> krmignore_parse / krmignore_match, and glob_match of
 * every pattern line against every path. Input format: the pattern file, then a line "%%" (or a NUL byte), then
 * one path per line (a trailing "/" asks for a directory match). Without a separator, every line is both a pattern
 * and a path. Checks: no crash (krmignore_match and glob_match_go, kpt's Go-style matcher, too), and a pattern with
 * no special character matches exactly itself under glob_match. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "package/krmignore.h"
#include "util/fsutil.h"
#include "util/glob.h"

static bool literal(const char *p)
{
    return !strpbrk(p, "*?[\\");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    char *paths = NULL;
    char *sep = memchr(text, 0, size);
    if (sep) {
        paths = sep + 1;
    } else if (!strncmp(text, "%%\n", 3)) {
        text[0] = 0;
        paths = text + 3;
    } else if ((sep = strstr(text, "\n%%\n"))) {
        *sep = 0;
        paths = sep + 4;
    }
    const char *patterns = text;
    /* the step budget is the process's, and a fuzz run is one process over many inputs: spent, every match would
     * answer -1 (over budget). These inputs are small, so their matches are cheap whatever they hold. */
    limits L = limits_default;
    L.max_glob_steps = SIZE_MAX;
    arena *a = arena_new();
    krmignore *k = krmignore_parse(a, &L, ".krmignore", patterns);
    diag_reset(); /* a line kpt cannot take is an error (k NULL matches nothing) */

    /* the lines of patterns and paths, NUL-terminated copies */
    char *pat_copy = arena_strdup(a, patterns);
    char *path_copy = arena_strdup(a, paths ? paths : patterns);
    const char *pl[256], *ql[256];
    int np = 0, nq = 0;
    for (char *s = pat_copy; s && *s && np < 256;) {
        char *e = strchr(s, '\n');
        if (e)
            *e = 0;
        pl[np++] = s;
        s = e ? e + 1 : NULL;
    }
    for (char *s = path_copy; s && *s && nq < 256;) {
        char *e = strchr(s, '\n');
        if (e)
            *e = 0;
        ql[nq++] = s;
        s = e ? e + 1 : NULL;
    }
    for (int j = 0; j < nq; j++) {
        const char *path = ql[j];
        size_t n = strlen(path);
        bool dir = n && path[n - 1] == '/';
        char *clean = arena_strndup(a, path, dir ? n - 1 : n);
        krmignore_match(k, clean, dir);
        krmignore_match(k, clean, !dir);
        for (int i = 0; i < np; i++) {
            glob_match_go(&L, pl[i], clean); /* kpt's (Go's) matcher: no crash, no overread */
            int m = glob_match(&L, pl[i], clean);
            if (m >= 0 && literal(pl[i]) && m != !strcmp(pl[i], clean))
                fz_die("fuzz_krmignore", "glob_match(\"%s\", \"%s\") = %d for a pattern without special characters", pl[i],
                       clean, m);
        }
        if (literal(clean) && !glob_match(&L, clean, clean))
            fz_die("fuzz_krmignore", "the literal pattern \"%s\" does not match itself", clean);
    }
    arena_free(a);
    free(text);
    return 0;
}
