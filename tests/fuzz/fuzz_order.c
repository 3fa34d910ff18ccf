/* fuzz_order: bytes -> objects -> the ordering step (src/order) -> its checks. The step must return 0 or -1 (with a
 * message), never crash; on success the list holds the same objects (a permutation), every object of a sync phase
 * has an integer sync-wave, an object's wave is above each of its same-phase depends-on dependencies', the stream
 * emits and parses back to the same trees; with ordering auto and no depends-on it changes nothing at all.
 *
 * Input format: line 1 holds option letters: k ordering kpt, o ordering off (else auto), a: KUBE_API_VERSIONS is
 * "v1,apps/v1,example.com/v1". The rest is a YAML stream; each mapping document is one object. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "order/order.h"
#include "package/resource.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static long wave_of(const resource *r)
{
    const char *w = res_annotation(r, "argocd.argoproj.io/sync-wave");
    return w ? strtol(w, NULL, 10) : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *end = s + size;
    const char *nl = memchr(s, '\n', size);
    const char *le = nl ? nl : end;
    order_opts o = {0};
    for (const char *p = s; p < le; p++) {
        if (*p == 'k')
            o.mode = "kpt";
        else if (*p == 'o')
            o.mode = "off";
        else if (*p == 'a')
            o.kube_api_versions = "v1,apps/v1,example.com/v1";
    }
    const char *yaml = nl ? nl + 1 : end;
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    diag_reset();
    struct fz_docs docs = {0};
    int rc = yaml_load(a, st, limits_yaml(fz_limits()), "r.yaml", yaml, (size_t)(end - yaml), fz_collect, &docs);
    diag_reset();
    rlist items = {0};
    bool wanted = false;
    for (size_t i = 0; rc == 0 && i < docs.n; i++) {
        if (!is_map(docs.v[i]))
            continue;
        resource *r = resource_new(a, docs.v[i], NULL, "r.yaml", (uint32_t)i);
        rlist_push(&items, r);
        wanted = wanted || order_wanted(r);
    }
    size_t n = items.n;
    resource **before = malloc((n + 1) * sizeof *before);
    if (n)
        memcpy(before, items.v, n * sizeof *before);
    buf was = {0};
    for (size_t i = 0; i < n; i++)
        emit_json(&was, items.v[i]->root);
    diag_set_step("ordering (fuzz)");
    int orc = order_apply(a, &items, &o);
    if (orc != 0 && orc != -1)
        fz_die("fuzz_order", "order_apply returned %d", orc);
    if (orc < 0 && !diag_failed())
        fz_die("fuzz_order", "order_apply failed without a message");
    if (orc == 0) {
        if (items.n != n)
            fz_die("fuzz_order", "%zu objects in, %zu out", n, items.n);
        for (size_t i = 0; i < n; i++) {
            bool found = false;
            for (size_t k = 0; k < n && !found; k++)
                found = items.v[k] == before[i];
            if (!found)
                fz_die("fuzz_order", "object %zu is gone from the list", i);
        }
        if ((!wanted && (!o.mode || !strcmp(o.mode, "auto"))) || (o.mode && !strcmp(o.mode, "off"))) {
            buf now = {0};
            for (size_t i = 0; i < n; i++)
                emit_json(&now, items.v[i]->root);
            if (now.len != was.len || (now.len && memcmp(now.data, was.data, now.len)))
                fz_die("fuzz_order", "nothing to translate, yet the objects changed");
            buf_free(&now);
        }
        /* a translated dependency on an object of the same phase sits in a lower wave */
        for (size_t i = 0; i < n; i++) {
            const char *dep = res_annotation(items.v[i], ORDER_DEPENDS_ON);
            long wi = wave_of(items.v[i]);
            if (!dep || wi < 0 || res_annotation(items.v[i], "argocd.argoproj.io/hook") ||
                res_annotation(items.v[i], "helm.sh/hook"))
                continue;
            for (size_t k = 0; k < n; k++) {
                const resource *d = items.v[k];
                const char *name = res_name(d), *kind = res_kind(d);
                if (d == items.v[i] || !name || !kind || res_annotation(d, "argocd.argoproj.io/hook") ||
                    res_annotation(d, "helm.sh/hook") || wave_of(d) < 0)
                    continue;
                /* only a reference that names this object unambiguously: ".../<Kind>/<name>" as a whole entry */
                char ref[512];
                snprintf(ref, sizeof ref, "/%s/%s", kind, name);
                size_t rl = strlen(ref), dl = strlen(dep);
                bool named = dl >= rl && !strcmp(dep + dl - rl, ref) && !strchr(dep, ',');
                const char *av = res_api_version(d);
                bool core = av && !strchr(av, '/');
                /* and no other object with that id, which the reference could name instead */
                size_t same = 0;
                for (size_t j = 0; j < n; j++)
                    same += res_kind(items.v[j]) && res_name(items.v[j]) && !strcmp(res_kind(items.v[j]), kind) &&
                            !strcmp(res_name(items.v[j]), name);
                core = core && same == 1;
                if (named && core && dep[0] == '/' && !strncmp(dep, "/namespaces/", 12) && res_namespace(d) &&
                    res_namespace(items.v[i]) && !strcmp(res_namespace(d), res_namespace(items.v[i])) &&
                    dl == 12 + strlen(res_namespace(d)) + rl && wave_of(d) >= wi)
                    fz_die("fuzz_order", "%s/%s in wave %ld, its dependency %s in wave %ld", res_kind(items.v[i]),
                           res_name(items.v[i]) ? res_name(items.v[i]) : "?", wi, ref, wave_of(d));
            }
        }
        node **roots = malloc((n + 1) * sizeof *roots);
        int *wide = calloc(n + 1, sizeof *wide);
        for (size_t i = 0; i < n; i++)
            roots[i] = items.v[i]->root;
        fz_check_stream(a, st, roots, wide, n, true, "fuzz_order");
        free(roots);
        free(wide);
    }
    buf_free(&was);
    free(before);
    rlist_free(&items);
    fz_docs_free(&docs);
    strtab_release(st);
    arena_free(a);
    diag_reset();
    return 0;
}
