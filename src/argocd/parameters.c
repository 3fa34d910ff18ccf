/* `cmp-generate parameters`: what Argo CD shows in the Parameters tab besides the static settings. The package's
 * setters (from its apply-setters configs) are announced as one map parameter with their current values, so a user
 * sees and overrides them. The output is always a JSON array, even for a broken package. */
#include "argocd/parameters.h"

#include <string.h>

#include "argocd/settings.h"
#include "package/package.h"
#include "pipeline/kptfile.h"
#include "util/diag.h"
#include "yaml/emit.h"

static const node *config_of(package *p, const step *s)
{
    if (s->config_map)
        return s->config_map;
    if (!s->config_path)
        return NULL;
    for (size_t i = 0; i < p->own.n; i++)
        if (!strcmp(p->own.v[i]->path, s->config_path))
            return map_get(p->own.v[i]->root, "data");
    return NULL;
}

static void collect(arena *a, package *p, node *setters)
{
    pipeline pl;
    if (kptfile_pipeline(a, p, &pl) == 0) {
        for (size_t i = 0; i < pl.n; i++) {
            if (strcmp(pl.steps[i].fn->name, "apply-setters"))
                continue;
            const node *d = config_of(p, &pl.steps[i]);
            for (uint32_t k = 0; is_map(d) && k < d->c.n; k++) {
                const char *key = scalar(map_key(d, k)), *val = scalar(map_val(d, k));
                if (key && val && !map_get(setters, key))
                    map_set(a, setters, key, node_str(a, val));
            }
        }
    }
    for (size_t i = 0; i < p->nsubs; i++)
        collect(a, p->subs[i], setters);
}

int print_parameters(const char *dir, buf *out)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package *root = NULL;
    load_ctx lc = {.a = a, .st = st};
    node *setters = node_map(a);
    int rc = 0;
    if (package_load(&lc, dir, true, &root) < 0)
        rc = -1;
    else
        collect(a, root, setters);
    if (rc == 0 && diag_failed())
        rc = -1;
    buf_putc(out, '[');
    if (setters->c.n) {
        buf_puts(out, "{\"name\":\"setters\",\"title\":\"Setters\",\"tooltip\":");
        json_quote(out, "The package's apply-setters values; change one to override it for this Application.");
        buf_puts(out, ",\"collectionType\":\"map\",\"map\":{");
        for (uint32_t i = 0; i < setters->c.n; i++) {
            if (i)
                buf_putc(out, ',');
            json_quote(out, scalar(map_key(setters, i)));
            buf_putc(out, ':');
            json_quote(out, scalar(map_val(setters, i)));
        }
        buf_puts(out, "}}");
    }
    buf_puts(out, "]\n");
    package_free(root);
    strtab_release(st);
    arena_free(a);
    return rc;
}
