/* fuzz_functions: bytes -> one built-in function (not render-helm-chart nor kustomize-build, which run tools) with a
 * functionConfig read from the input -> run over a fixed list of resources, with fn_ctx set up the way
 * src/pipeline/executor.c does. The function must return 0 or -1 (with a message), never crash, and whatever it
 * leaves in the list must emit to YAML that parses back to the same trees, and to valid JSON.
 *
 * Input format: line 1 is "<function-name> [option letters]"; a name that is not a built-in picks one by hash, so
 * mutated names still reach every function. Options: m the config is a Kptfile configMap (a map of strings turned
 * into the function-input ConfigMap, as kpt does), n no config at all, v run as a validator (on copies),
 * s only the first half of the items are selected. The rest is YAML: its first document is the config, any
 * further documents are added to the resources (as objects of extra.yaml in the root package). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_resources.h"
#include "functions/function.h"
#include "package/package.h"
#include "pipeline/kptfile.h"

static const fn_def *eligible[64];
static size_t neligible;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (const fn_def *const *f = fn_all(); *f; f++)
        if (strcmp((*f)->name, "render-helm-chart") && strcmp((*f)->name, "kustomize-build") && neligible < 64)
            eligible[neligible++] = *f;
    setenv("PATH", "/nonexistent-fuzz-path", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *end = s + size;
    const char *nl = memchr(s, '\n', size);
    const char *le = nl ? nl : end;
    /* function name: first word of line 1 */
    const char *we = s;
    while (we < le && *we != ' ')
        we++;
    const fn_def *fn = NULL;
    for (size_t i = 0; i < neligible && !fn; i++)
        if (strlen(eligible[i]->name) == (size_t)(we - s) && !memcmp(eligible[i]->name, s, (size_t)(we - s)))
            fn = eligible[i];
    if (!fn) {
        uint32_t h = 2166136261u;
        for (const char *p = s; p < we; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        fn = eligible[h % neligible];
    }
    bool as_config_map = false, no_config = false, validator = false, select_half = false;
    for (const char *p = we; p < le; p++) {
        if (*p == 'm')
            as_config_map = true;
        else if (*p == 'n')
            no_config = true;
        else if (*p == 'v')
            validator = true;
        else if (*p == 's')
            select_half = true;
    }
    const char *yaml = nl ? nl + 1 : end;

    arena *a = arena_new();
    strtab *st = strtab_new(a);
    diag_reset();
    package root, sub, *subs[1];
    rlist items = {0};
    fz_load_fixed(a, st, &items, &root, &sub, subs);

    /* the input: config, then extra objects */
    struct fz_docs docs = {0};
    diag_reset();
    int rc = yaml_load(a, st, limits_yaml(fz_limits()), "fn-config.yaml", yaml, (size_t)(end - yaml), fz_collect, &docs);
    diag_reset();
    node *config = NULL;
    if (rc == 0 && docs.n) {
        config = docs.v[0];
        for (size_t i = 1; i < docs.n; i++) {
            if (!is_map(docs.v[i]))
                continue;
            /* as the reader has it: only a kustomization file may lack apiVersion, kind or metadata.name */
            const char *kind = path_str(docs.v[i], "kind", NULL);
            bool krm = path_str(docs.v[i], "apiVersion", NULL) && kind && *kind && path_str(docs.v[i], "metadata", "name", NULL);
            resource *r = resource_new(a, docs.v[i], &root, krm ? "extra.yaml" : "kustomization.yaml", (uint32_t)(i - 1));
            if (!krm)
                r->flags |= R_KUSTOMIZE;
            r->seq_wide = (uint8_t)docs.wide[i];
            rlist_push(&items, r);
            rlist_push(&root.own, r);
        }
    }
    if (as_config_map && config) {
        /* what kptfile.c accepts as configMap, then what it hands the function */
        bool ok = is_map(config);
        for (uint32_t i = 0; ok && i < node_len(config); i++)
            ok = is_scalar(map_key(config, i)) && is_scalar(map_val(config, i));
        config = ok ? synthesize_config_map(a, config) : NULL;
    }
    if (no_config)
        config = NULL;
    if (rc < 0 || (as_config_map && !config && !no_config)) {
        fz_docs_free(&docs);
        rlist_free(&items);
        fz_free_fixed(&root, &sub);
        strtab_release(st);
        arena_free(a);
        diag_reset();
        return 0;
    }

    fn_results results = {0};
    fn_host host = {.limits = fz_limits()}; /* nothing else: no tool may run */
    fn_ctx c = {.a = a, .st = st, .pkg = &root, .results = &results, .validator = validator, .config = config,
                .config_file = "Kptfile", .config_line = 9, .host = &host};
    diag_set_step("pipeline.mutators[0] (fuzz)");
    rlist subset = {0};
    rlist *view = &items;
    if (validator || select_half) {
        for (size_t i = 0; i < items.n; i++)
            if (!select_half || i % 2 == 0)
                rlist_push(&subset, validator ? resource_clone(a, items.v[i]) : items.v[i]);
        view = &subset;
    }
    c.items = view;
    rc = fn->run(&c);
    if (rc != 0 && rc != -1)
        fz_die("fuzz_functions", "%s returned %d", fn->name, rc);
    if (rc < 0 && !diag_failed())
        fz_die("fuzz_functions", "%s failed without a message", fn->name);
    for (size_t i = 0; i < results.n; i++)
        if (!results.v[i].message)
            fz_die("fuzz_functions", "%s reported a result without a message", fn->name);
    if (rc == 0) {
        rlist_compact(view);
        node **trees = malloc((view->n + 1) * sizeof *trees);
        int *wide = malloc((view->n + 1) * sizeof *wide);
        size_t n = 0;
        for (size_t i = 0; i < view->n; i++) {
            if (!view->v[i]->root)
                fz_die("fuzz_functions", "%s left an item without a tree", fn->name);
            trees[n] = view->v[i]->root;
            wide[n++] = view->v[i]->seq_wide;
        }
        char what[128];
        snprintf(what, sizeof what, "fuzz_functions (%s output)", fn->name);
        if (n) {
            fz_check_stream(a, st, trees, wide, n, true, what);
            fz_check_stream_as(a, st, trees, wide, n, true, true, what); /* edited scalars among kept layouts */
            for (size_t i = 0; i < n; i++)
                fz_check_json(trees[i], what);
        }
        free(trees);
        free(wide);
    }
    free(results.v);
    rlist_free(&subset);
    fz_docs_free(&docs);
    rlist_free(&items);
    fz_free_fixed(&root, &sub);
    strtab_release(st);
    arena_free(a);
    diag_reset();
    return 0;
}
