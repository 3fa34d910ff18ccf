/* Conformance case reader (tests/conformance/run builds it into $BUILD_DIR/conformance/caseinfo).
 *
 *   caseinfo config .expected/config.yaml
 *       One line per top-level key, "key<TAB>value". A scalar prints its text; "args" prints one "arg<TAB>k=v" line
 *       per entry, in file order; any other collection prints "key<TAB><map>" or "key<TAB><seq>".
 *   caseinfo fns Kptfile
 *       One line per pipeline step, mutators then validators: "image<TAB>REF" or "exec<TAB>PATH"
 *       (or "other<TAB>-" for a step with neither).
 *
 * Exit 0, or 1 with a message on stderr when the file cannot be read or parsed. Values holding a tab or a line break
 * are refused, so the shell can read the lines with IFS=$'\t' read -r. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/diag.h"
#include "yaml/load.h"
#include "yaml/tree.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0, r;
    char *d = xmalloc(cap + 1);
    while ((r = fread(d + n, 1, cap - n, fp)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            d = xrealloc(d, cap + 1);
        }
    }
    fclose(fp);
    d[n] = 0;
    *len = n;
    return d;
}

static int safe(const char *s)
{
    return s && !strpbrk(s, "\t\n\r");
}

static int put(const char *k, const char *v)
{
    if (!safe(k) || !safe(v)) {
        fprintf(stderr, "caseinfo: value of %s holds a tab or a line break\n", k ? k : "?");
        return 1;
    }
    printf("%s\t%s\n", k, v);
    return 0;
}

static int cmd_config(const node *root)
{
    int rc = 0;
    for (uint32_t i = 0; i < node_len(root) && !rc; i++) {
        const char *k = scalar(map_key(root, i));
        const node *v = map_val(root, i);
        if (!k)
            continue;
        if (!strcmp(k, "args") && is_map(v)) {
            for (uint32_t j = 0; j < node_len(v) && !rc; j++) {
                const char *ak = scalar(map_key(v, j)), *av = scalar(map_val(v, j));
                if (!ak || !av) {
                    fprintf(stderr, "caseinfo: args.%s is not a scalar\n", ak ? ak : "?");
                    return 1;
                }
                size_t n = strlen(ak) + strlen(av) + 2;
                char *kv = xmalloc(n);
                snprintf(kv, n, "%s=%s", ak, av);
                rc = put("arg", kv);
                free(kv);
            }
        } else if (is_scalar(v)) {
            rc = put(k, scalar(v));
        } else {
            rc = put(k, is_map(v) ? "<map>" : "<seq>");
        }
    }
    return rc;
}

static int cmd_fns(const node *root)
{
    static const char *lists[] = {"mutators", "validators"};
    for (int l = 0; l < 2; l++) {
        const node *steps = path_get(root, "pipeline", lists[l], NULL);
        if (!is_seq(steps))
            continue;
        for (uint32_t i = 0; i < node_len(steps); i++) {
            const node *s = seq_item(steps, i);
            const char *image = is_map(s) ? path_str(s, "image", NULL) : NULL;
            const char *exec = is_map(s) ? path_str(s, "exec", NULL) : NULL;
            int rc = image ? put("image", image) : exec ? put("exec", exec) : put("other", "-");
            if (rc)
                return rc;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "config") != 0 && strcmp(argv[1], "fns") != 0)) {
        fprintf(stderr, "usage: caseinfo config FILE | caseinfo fns KPTFILE\n");
        return 2;
    }
    size_t len = 0;
    char *data = slurp(argv[2], &len);
    if (!data) {
        fprintf(stderr, "caseinfo: cannot read %s\n", argv[2]);
        return 1;
    }
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    node *root = NULL;
    if (yaml_load_one(a, st, NULL, argv[2], data, len, &root) != 0) {
        fprintf(stderr, "caseinfo: %s\n", diag_message());
        return 1;
    }
    int rc = 0;
    if (root && !is_map(root)) {
        fprintf(stderr, "caseinfo: %s: not a mapping\n", argv[2]);
        rc = 1;
    } else if (root) {
        rc = !strcmp(argv[1], "config") ? cmd_config(root) : cmd_fns(root);
    }
    strtab_release(st);
    arena_free(a);
    free(data);
    return rc;
}
