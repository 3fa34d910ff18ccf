#include "package/krmignore.h"

#include <string.h>

#include "util/glob.h"

struct rule {
    const char *glob; /* anchored patterns match the whole path, others any suffix of segments */
    bool negate, dir_only, anchored;
};

struct krmignore {
    struct rule *rules;
    size_t n;
};

krmignore *krmignore_parse(arena *a, const char *text)
{
    krmignore *k = arena_alloc(a, sizeof *k);
    size_t lines = 1;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    k->rules = arena_alloc(a, lines * sizeof *k->rules);
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *line = arena_strndup(a, p, n);
        p += n + (e ? 1 : 0);
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\r' || (line[len - 1] == ' ' && (len < 2 || line[len - 2] != '\\'))))
            line[--len] = 0;
        if (!len || line[0] == '#')
            continue;
        struct rule r = {0};
        char *s = line;
        if (*s == '!') {
            r.negate = true;
            s++;
        } else if (*s == '\\' && (s[1] == '!' || s[1] == '#')) {
            s++;
        }
        len = strlen(s);
        if (len && s[len - 1] == '/') {
            r.dir_only = true;
            s[--len] = 0;
        }
        if (!len)
            continue;
        if (*s == '/') {
            r.anchored = true;
            s++;
        } else if (strchr(s, '/')) {
            r.anchored = true; /* a slash inside anchors the pattern to the root, as in git */
        }
        if (!strncmp(s, "**/", 3))
            r.anchored = false, s += 3;
        r.glob = s;
        k->rules[k->n++] = r;
    }
    return k;
}

static int rule_matches(const struct rule *r, const char *path)
{
    if (r->anchored)
        return glob_match(r->glob, path);
    /* unanchored: the pattern may match starting at any segment */
    for (const char *s = path;;) {
        int m = glob_match(r->glob, s);
        if (m)
            return m;
        const char *slash = strchr(s, '/');
        if (!slash)
            return 0;
        s = slash + 1;
    }
}

int krmignore_match(const krmignore *k, const char *path, bool is_dir)
{
    if (!k)
        return 0;
    int ignored = 0;
    for (size_t i = 0; i < k->n; i++) {
        const struct rule *r = &k->rules[i];
        if (r->dir_only && !is_dir)
            continue;
        int m = rule_matches(r, path);
        if (m < 0)
            return -1;
        if (m)
            ignored = !r->negate;
    }
    return ignored;
}
