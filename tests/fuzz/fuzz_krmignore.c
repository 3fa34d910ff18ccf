/* fuzz_krmignore: bytes -> a .krmignore text and paths -> krmignore_parse / krmignore_match, and glob_match of
 * every pattern line against every path. Input format: the pattern file, then a line "%%" (or a NUL byte), then
 * one path per line (a trailing "/" asks for a directory match). Without a separator, every line is both a pattern
 * and a path. Checks: no crash, and a pattern with no special character matches exactly itself. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "package/krmignore.h"
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
    arena *a = arena_new();
    krmignore *k = krmignore_parse(a, patterns);

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
            bool m = glob_match(pl[i], clean);
            if (literal(pl[i]) && m != !strcmp(pl[i], clean))
                fz_die("fuzz_krmignore", "glob_match(\"%s\", \"%s\") = %d for a pattern without special characters", pl[i],
                       clean, m);
        }
        if (literal(clean) && !glob_match(clean, clean))
            fz_die("fuzz_krmignore", "the literal pattern \"%s\" does not match itself", clean);
    }
    arena_free(a);
    free(text);
    return 0;
}
