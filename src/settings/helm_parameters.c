#include "settings/helm_parameters.h"

#include <string.h>

#include "util/diag.h"
#include "yaml/emit.h"

#define PARAM "parameter \"helm-parameters\""
/* helm's own limits (pkg/strvals): 30 nested names, list indexes up to 65536. The number of parts in all and the
 * items a gap may add are ours, so the document stays linear in what the Application wrote. */
#define MAX_DOTS 30
#define MAX_PARTS 64
#define MAX_INDEX 65536
#define MAX_GAP_ITEMS 65536

typedef struct part {
    const char *name; /* a map key, or NULL for a list index */
    uint32_t index;
} part;

/* Splits key as helm's --set parser reads it: names separated by '.', list indexes in [], '\' takes the next
 * character as it is. What helm would read as the end of the assignment ('=', ',') must be escaped too. */
static int split_key(arena *a, const char *key, part *parts, int *n)
{
    size_t len = strlen(key);
    char *name = arena_alloc(a, len + 1);
    const char *raw = key;
    key = shown(a, key);
    int dots = 0;
    *n = 0;
    const char *p = raw;
    if (!*p)
        return fail(NULL, 0, "%s: a key is empty", PARAM);
    for (;;) {
        /* a name, up to '.', '[' or the end */
        size_t w = 0;
        while (*p && *p != '.' && *p != '[') {
            if (*p == '\\') {
                if (!p[1])
                    return fail(NULL, 0, "%s: key \"%s\" ends with a lone '\\'", PARAM, key);
                p++;
            } else if (*p == '=' || *p == ',') {
                return fail(NULL, 0, "%s: key \"%s\" has an unescaped '%c' (write \\%c for the character itself)",
                            PARAM, key, *p, *p);
            }
            name[w++] = *p++;
        }
        if (!w)
            return fail(NULL, 0, "%s: key \"%s\" has an empty name (before '%s')", PARAM, key,
                        *p == '.' ? "." : *p == '[' ? "[" : "the end");
        name[w] = 0;
        if (*n >= MAX_PARTS)
            return fail(NULL, 0, "%s: key \"%s\" has more than %d parts", PARAM, key, MAX_PARTS);
        parts[(*n)++] = (part){arena_strndup(a, name, w), 0};
        /* list indexes after the name: "[0]", "[0][2]" */
        while (*p == '[') {
            const char *d = ++p;
            unsigned long v = 0;
            while (*p >= '0' && *p <= '9' && v <= MAX_INDEX)
                v = v * 10 + (unsigned long)(*p++ - '0');
            if (p == d || *p != ']')
                return fail(NULL, 0, "%s: key \"%s\" has a list index that is not a number in [] (as list[0])", PARAM,
                            key);
            if (v > MAX_INDEX)
                return fail(NULL, 0, "%s: key \"%s\" has a list index over %d (helm's limit)", PARAM, key, MAX_INDEX);
            p++;
            if (*n >= MAX_PARTS)
                return fail(NULL, 0, "%s: key \"%s\" has more than %d parts", PARAM, key, MAX_PARTS);
            parts[(*n)++] = (part){NULL, (uint32_t)v};
        }
        if (!*p)
            return 0;
        if (*p != '.')
            return fail(NULL, 0, "%s: key \"%s\" needs a '.' or '[' after a list index", PARAM, key);
        if (++dots > MAX_DOTS)
            return fail(NULL, 0, "%s: key \"%s\" nests more than %d names (helm's limit)", PARAM, key, MAX_DOTS);
        p++;
    }
}

/* A key of the document: written quoted wherever a YAML reader would take it for something other than a string
 * ("true", "1.10"), which helm would then spell its own way. */
static void put(arena *a, node *map, const char *key, node *val)
{
    if (map_get(map, key))
        map_set(a, map, key, val);
    else
        map_append(a, map, node_str(a, key), val);
}

/* The list at index i of seq, grown with nulls up to it as helm grows it; *gap counts the items added. */
static int reach(arena *a, node *seq, uint32_t i, size_t *gap, const char *key)
{
    while (node_len(seq) <= i) {
        if (node_len(seq) < i && ++*gap > MAX_GAP_ITEMS) /* the item at i itself is no gap */
            return fail(NULL, 0, "%s: key \"%s\": the list indexes leave more than %d items to fill", PARAM, key,
                        MAX_GAP_ITEMS);
        seq_append(a, seq, node_scalar(a, "", 0, ST_PLAIN));
    }
    return 0;
}

/* Sets the value at the path: what stands in the way (a string where a map is needed, a map where a list is) is
 * replaced, as helm does; a later key wins. */
static int assign(arena *a, node *root, const part *parts, int n, const char *value, size_t *gap, const char *key)
{
    node *cur = root;
    for (int i = 0; i < n; i++) {
        bool last = i == n - 1;
        node *next = NULL;
        if (!last) {
            node *have = parts[i].name ? map_get(cur, parts[i].name)
                         : parts[i].index < node_len(cur) ? seq_item(cur, parts[i].index) : NULL;
            bool want_map = parts[i + 1].name != NULL;
            next = (want_map ? is_map(have) : is_seq(have)) ? have : want_map ? node_map(a) : node_seq(a);
        } else {
            next = node_str(a, value);
        }
        if (parts[i].name) {
            put(a, cur, parts[i].name, next);
        } else {
            if (reach(a, cur, parts[i].index, gap, key) < 0)
                return -1;
            seq_set(cur, parts[i].index, next);
        }
        cur = next;
    }
    return 0;
}

int helm_parameters_yaml(arena *a, const node *params, const char **yaml)
{
    *yaml = NULL;
    uint32_t n = node_len(params);
    if (!n)
        return 0;
    node *root = node_map(a);
    part parts[MAX_PARTS];
    size_t gap = 0;
    map_foreach(params, i, k, v) {
        const char *key = scalar(k), *value = scalar(v);
        int np;
        if (!key || !value)
            return fail(NULL, 0, "%s must hold strings only", PARAM);
        if (split_key(a, key, parts, &np) < 0 || assign(a, root, parts, np, value, &gap, shown(a, key)) < 0)
            return -1;
    }
    buf b = {0};
    emit_opts eo = {.seq_wide = false, .comments = false};
    emit_yaml(&b, root, &eo);
    *yaml = arena_strndup(a, buf_cstr(&b), b.len);
    buf_free(&b);
    return 0;
}
