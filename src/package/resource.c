#include "package/resource.h"

#include <stdlib.h>
#include <string.h>

#include "package/package.h"

static uint32_t next_serial;

void rlist_push(rlist *l, resource *r)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = r;
}

void rlist_free(rlist *l)
{
    xfree(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

void rlist_compact(rlist *l)
{
    size_t j = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i])
            l->v[j++] = l->v[i];
    l->n = j;
}

resource *resource_new(arena *a, node *root, struct package *pkg, const char *path, uint32_t index)
{
    resource *r = arena_alloc8(a, sizeof *r); /* 40 bytes, not 48: 30,000 objects are 240 KB (issue #32) */
    r->root = root;
    r->pkg = pkg;
    r->path = path;
    r->index = index;
    r->serial = ++next_serial;
    r->line = node_line(root);
    return r;
}

resource *resource_clone(arena *a, const resource *r)
{
    resource *c = arena_alloc(a, sizeof *c);
    *c = *r;
    c->root = node_clone(a, r->root);
    return c;
}

const char *res_api_version(const resource *r)
{
    return path_str(r->root, "apiVersion", NULL);
}

const char *res_kind(const resource *r)
{
    return path_str(r->root, "kind", NULL);
}

const char *res_name(const resource *r)
{
    return path_str(r->root, "metadata", "name", NULL);
}

const char *res_namespace(const resource *r)
{
    return path_str(r->root, "metadata", "namespace", NULL);
}

const char *res_annotation(const resource *r, const char *key)
{
    return path_str(r->root, "metadata", "annotations", key, NULL);
}

const char *res_label(const resource *r, const char *key)
{
    return path_str(r->root, "metadata", "labels", key, NULL);
}

void res_group(const resource *r, char *out, size_t outlen)
{
    const char *av = res_api_version(r);
    const char *slash = av ? strrchr(av, '/') : NULL;
    size_t n = slash ? (size_t)(slash - av) : 0;
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, av ? av : "", n);
    out[n] = 0;
}

const char *res_id(arena *a, const resource *r)
{
    const char *k = res_kind(r), *n = res_name(r), *ns = res_namespace(r);
    if (ns && *ns)
        return arena_printf(a, "%s/%s/%s", k ? k : "?", ns, n ? n : "?");
    return arena_printf(a, "%s/%s", k ? k : "?", n ? n : "?");
}

const char *res_file(arena *a, const resource *r)
{
    if (r->pkg && r->pkg->rel && *r->pkg->rel)
        return arena_printf(a, "%s/%s", r->pkg->rel, r->path ? r->path : "?");
    return r->path ? r->path : "(generated)";
}

bool res_is_local_config(const resource *r)
{
    const char *v = res_annotation(r, "config.kubernetes.io/local-config");
    return v && strcmp(v, "false") != 0;
}

bool res_is_kptfile(const resource *r)
{
    const char *k = res_kind(r), *av = res_api_version(r);
    return k && !strcmp(k, "Kptfile") && av && !strncmp(av, "kpt.dev/", 8);
}
