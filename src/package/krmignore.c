/* .krmignore as kpt reads it. kpt (through kyaml) hands the file to a small gitignore library (go-gitignore,
 * 2020), whose rules are not git's; these are its rules, each checked against kpt 1.0.0-beta.56 (tests/kpt-compare
 * runs kpt itself on a package of them):
 *   - a line is read up to its "\n" (and one "\r"), trimmed of spaces at both ends; empty lines and lines starting
 *     with "#" are nothing, a leading "\#" is a "#"; a line of 64 KiB or more ends kpt's reading of the file;
 *   - "!" makes the pattern one that keeps a path, and a kept path is kept whatever the order of the lines;
 *   - a trailing "/" matches directories only; a leading "/" anchors the pattern at the package root;
 *   - a pattern of N parts (N-1 slashes once the slashes at both ends are trimmed) matches the last N parts of a
 *     path: "tests/x*" ignores a/b/tests/x1 at any depth, "a.yaml" every a.yaml; an anchored one matches the path
 *     when it has exactly N parts (and a longer path's first N parts followed by its "/", which only a class that
 *     takes "/" can match);
 *   - a pattern with "*", "?" or "[" is matched with Go's filepath.Match (util/glob.h: no "**", a star stays in
 *     one part), any other is compared as text (so "a\.yaml" matches nothing).
 * Directories are matched as the walk meets them (src/package/reader.c), so an ignored directory hides its
 * files; the package root itself is never matched. */
#include "package/krmignore.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "util/glob.h"

struct rule {
    const char *text; /* the pattern, slashes at both ends trimmed */
    uint32_t parts;   /* its '/'-separated parts: how many of a path's parts it is matched against */
    bool keep, dir_only, anchored, glob;
};

struct krmignore {
    struct rule *rules;
    size_t n;
    const limits *limits; /* the run's glob step budget (max-glob-steps) */
};

/* Go's bufio.Scanner, which kpt reads the file with, takes lines shorter than 64 KiB (a "\r" before the "\n"
 * counts); at a longer one it stops without a word, dropping it and every line after it. */
#define KPT_MAX_LINE 65536

krmignore *krmignore_parse(arena *a, const limits *L, const char *file, const char *text)
{
    krmignore *k = arena_alloc(a, sizeof *k);
    k->limits = L;
    size_t lines = 1;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    k->rules = arena_alloc(a, lines * sizeof *k->rules);
    const char *p = text;
    for (int lineno = 1; *p; lineno++) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n >= KPT_MAX_LINE) {
            fail(file, lineno, "the line is %zu bytes long; kpt reads .krmignore lines of up to %d bytes and silently "
                               "stops reading at a longer one (dropping it and every line after it): shorten it",
                 n, KPT_MAX_LINE - 1);
            return NULL;
        }
        char *line = arena_strndup(a, p, n);
        p += n + (e ? 1 : 0);
        if (n && line[n - 1] == '\r')
            line[--n] = 0;
        char *s = line;
        while (*s == ' ')
            s++;
        n = strlen(s);
        while (n && s[n - 1] == ' ')
            s[--n] = 0;
        if (!n || *s == '#')
            continue;
        if (s[0] == '\\' && s[1] == '#')
            s++, n--;
        const char *as_read = arena_strdup(a, s);
        struct rule r = {0};
        if (*s == '!')
            r.keep = true, s++, n--;
        if (!n || !strcmp(s, "/")) {
            /* kpt's gitignore library indexes the pattern's first character and panics on these */
            fail(file, lineno, "\"%s\" is an empty pattern, on which kpt fails (a Go panic in its .krmignore "
                               "reader): remove the line",
                 shown(a, as_read));
            return NULL;
        }
        r.anchored = s[0] == '/';
        r.dir_only = s[n - 1] == '/';
        r.glob = strpbrk(s, "*?[") != NULL;
        while (*s == '/')
            s++, n--;
        while (n && s[n - 1] == '/')
            s[--n] = 0;
        r.text = s;
        r.parts = 1;
        for (const char *q = s; *q; q++)
            r.parts += *q == '/';
        k->rules[k->n++] = r;
    }
    return k;
}

/* 1, 0, or -1 when the glob budget ran out */
static int text_matches(const krmignore *k, const struct rule *r, const char *part)
{
    return r->glob ? glob_match_go(k->limits, r->text, part) : !strcmp(r->text, part);
}

static int rule_matches(const krmignore *k, const struct rule *r, const char *path, uint32_t parts, bool is_dir)
{
    if (parts < r->parts)
        return 0;
    if (r->anchored) {
        if (parts == r->parts)
            return r->dir_only && !is_dir ? 0 : text_matches(k, r, path);
        if (r->dir_only || !r->glob)
            return 0; /* a first-parts prefix ends in "/": no directory, and no text without a "/" at its end */
        const char *q = path;
        for (uint32_t i = 0; i < r->parts; i++)
            q = strchr(q, '/') + 1;
        char *prefix = xmalloc((size_t)(q - path) + 1);
        memcpy(prefix, path, (size_t)(q - path));
        prefix[q - path] = 0;
        int m = text_matches(k, r, prefix);
        xfree(prefix);
        return m;
    }
    if (r->dir_only && !is_dir)
        return 0;
    const char *tail = path + strlen(path);
    for (uint32_t seen = 0; tail > path; tail--)
        if (tail[-1] == '/' && ++seen == r->parts)
            break;
    return text_matches(k, r, tail);
}

int krmignore_match(const krmignore *k, const char *path, bool is_dir)
{
    if (!k)
        return 0;
    uint32_t parts = 1;
    for (const char *q = path; *q; q++)
        parts += *q == '/';
    /* a pattern that keeps the path wins over every pattern that ignores it, wherever it stands */
    for (int pass = 0; pass < 2; pass++) {
        bool keep = pass == 0;
        for (size_t i = 0; i < k->n; i++) {
            if (k->rules[i].keep != keep)
                continue;
            int m = rule_matches(k, &k->rules[i], path, parts, is_dir);
            if (m)
                return m < 0 ? -1 : keep ? 0 : 1;
        }
    }
    return 0;
}
