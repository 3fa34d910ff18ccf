/* fuzz_parameters: bytes -> ARGOCD_APP_PARAMETERS (and optionally the other places a setting is read from) ->
 * settings_load; parse_image_override on every string of the images setting and on every scalar of the
 * parameters text. When the settings load, the tail of a render runs on the fixed resources the way render()
 * does it: check_annotation_domain, apply_final_steps (namespace, labels, annotations, images), stamp_metadata;
 * the objects must then emit to YAML that parses back to the same trees.
 *
 * Input format: text up to the first line starting with "%env " is ARGOCD_APP_PARAMETERS (unset when empty);
 * each "%env NAME" line starts a variable whose value is the text up to the next "%env " line (last newline
 * dropped). NAME must be PARAM_*, ARGOCD_ENV_* or one of the sidecar's own setting names (NAMESPACE, LABELS, ...).
 * NUL bytes end the input. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/host.h"
#include "argocd/metadata.h"
#include "argocd/overrides.h"
#include "settings/settings.h"
#include "fuzz_common.h"
#include "fuzz_resources.h"
#include "pipeline/executor.h"

static const char *const own_names[] = {"ANNOTATION_DOMAIN", "STAMP", "NAMESPACE", "LABELS", "ANNOTATIONS", "IMAGES",
                                        "SETTERS", "HELM_VALUES", "HELM_VALUE_FILES", "HELM_PARAMETERS",
                                        "HELM_RELEASE_NAME", "HELM_SKIP_TESTS", "TIMEOUT", NULL};
static char *set_names[32];
static int nset;

static void clear_env(void)
{
    for (int i = 0; i < nset; i++) {
        unsetenv(set_names[i]);
        free(set_names[i]);
    }
    nset = 0;
    unsetenv("ARGOCD_APP_PARAMETERS");
    for (const char *const *k = own_names; *k; k++)
        unsetenv(*k);
}

static void put_env(const char *name, size_t nlen, const char *val, size_t vlen)
{
    while (nlen && (name[nlen - 1] == ' ' || name[nlen - 1] == '\r'))
        nlen--;
    if (nset == 32 || !nlen || nlen > 64)
        return;
    char *n = strndup(name, nlen);
    bool ok = !strncmp(n, "PARAM_", 6) || !strncmp(n, "ARGOCD_ENV_", 11);
    for (const char *const *k = own_names; *k && !ok; k++)
        ok = !strcmp(n, *k);
    for (size_t i = 0; i < nlen && ok; i++)
        ok = (n[i] >= 'A' && n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_';
    if (!ok) {
        free(n);
        return;
    }
    char *v = strndup(val, vlen);
    setenv(n, v, 1);
    free(v);
    set_names[nset++] = n;
}

static void override_every_scalar(arena *a, const node *n, int depth)
{
    if (!n || depth > 64)
        return;
    if (is_scalar(n)) {
        node *d = NULL;
        if (parse_image_override(a, scalar(n), &d) < 0 && !diag_failed())
            fz_die("fuzz_parameters", "parse_image_override failed without a message");
        if (d && !is_map(d))
            fz_die("fuzz_parameters", "parse_image_override made a config that is not a map");
        diag_reset();
        return;
    }
    for (uint32_t i = 0; i < node_len(n); i++) {
        if (is_map(n)) {
            override_every_scalar(a, map_key(n, i), depth + 1);
            override_every_scalar(a, map_val(n, i), depth + 1);
        } else {
            override_every_scalar(a, seq_item(n, i), depth + 1);
        }
    }
}

static bool stamp_enabled(const void *ud, const char *key)
{
    return settings_stamps(ud, key);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CMP_MAX_ALIAS_NODES", "20000", 1); /* the operator's limits, read as main reads them */
    if (host_limits_from_env() < 0)
        fz_die("fuzz_parameters", "the limits: %s", diag_message());
    setenv("PATH", "/nonexistent-fuzz-path", 1);
    setenv("ARGOCD_APP_NAME", "shop", 1);
    setenv("ARGOCD_APP_NAMESPACE", "argocd", 1);
    setenv("ARGOCD_APP_PROJECT_NAME", "default", 1);
    setenv("ARGOCD_APP_REVISION", "0123456789abcdef0123456789abcdef01234567", 1);
    setenv("ARGOCD_APP_SOURCE_REPO_URL", "https://example.com/org/repo.git", 1);
    setenv("ARGOCD_APP_SOURCE_TARGET_REVISION", "main", 1);
    setenv("ARGOCD_APP_SOURCE_PATH", "apps/shop", 1);
    clear_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size); /* stops at a NUL byte */
    size_t len = strlen(text);
    clear_env();
    const char *first_env = !strncmp(text, "%env ", 5) ? text : NULL;
    if (!first_env) {
        char *q = memmem(text, len, "\n%env ", 6);
        first_env = q ? q + 1 : NULL;
    }
    size_t plen = first_env ? (size_t)(first_env - text) : len;
    if (plen && text[plen - 1] == '\n' && first_env)
        plen--;
    if (plen) {
        char *params = strndup(text, plen);
        setenv("ARGOCD_APP_PARAMETERS", params, 1);
        free(params);
    }
    for (const char *p = first_env; p && *p;) {
        const char *name = p + 5;
        const char *ne = strchr(name, '\n');
        const char *val = ne ? ne + 1 : name + strlen(name);
        const char *next = strstr(val, "\n%env ");
        const char *ve = next ? next : val + strlen(val);
        put_env(name, (size_t)((ne ? ne : ve) - name), val, (size_t)(ve - val));
        p = next ? next + 1 : NULL;
    }

    arena *a = arena_new();
    strtab *st = strtab_new(a);
    diag_reset();
    settings set;
    int rc = settings_load(a, st, &set);
    if (rc < 0 && !diag_failed())
        fz_die("fuzz_parameters", "settings_load failed without a message");
    diag_reset();
    /* every scalar of the parameters, read on their own, as image overrides */
    if (plen) {
        node *p = NULL;
        if (yaml_load_one(a, st, limits_yaml(host_limits()), "params", text, plen, &p) == 0)
            override_every_scalar(a, p, 0);
        diag_reset();
    }
    if (rc == 0) {
        for (uint32_t i = 0; set.images && i < node_len(set.images); i++) {
            const char *spec = scalar(seq_item(set.images, i));
            if (!spec)
                fz_die("fuzz_parameters", "the images setting holds a non-string");
            node *d = NULL;
            if (parse_image_override(a, spec, &d) < 0 && !diag_failed())
                fz_die("fuzz_parameters", "parse_image_override failed without a message");
            diag_reset();
        }
        if (set.timeout_seconds < 1 || set.timeout_seconds > 3600)
            fz_die("fuzz_parameters", "timeout %d accepted", set.timeout_seconds);
        /* the tail of render() */
        if (!set.annotation_domain)
            fz_die("fuzz_parameters", "settings_load left annotation-domain unset");
        const node *colls[] = {set.labels, set.annotations, set.setters, set.images};
        for (int ci = 0; ci < 4; ci++) {
            const node *cn = colls[ci];
            for (uint32_t i = 0; i < node_len(cn); i++)
                if (is_map(cn) ? !scalar(map_key(cn, i)) || !scalar(map_val(cn, i)) : !scalar(seq_item(cn, i)))
                    fz_die("fuzz_parameters", "a map or list setting holds a non-string");
        }
        if (check_annotation_domain(set.annotation_domain) == 0) {
            package root, sub, *subs[1];
            rlist items = {0};
            fz_load_fixed(a, st, &items, &root, &sub, subs);
            run_ctx R = {.a = a, .st = st, .setter_overrides = set.setters};
            drop_unapplied(&items, false);
            diag_reset();
            int frc = apply_final_steps(&R, &root, &items, &set);
            if (frc < 0 && !diag_failed())
                fz_die("fuzz_parameters", "apply_final_steps failed without a message");
            if (frc == 0) {
                app_meta meta;
                if (host_app_meta(a, &meta) < 0) {
                    /* a refused ARGOCD_APP_* value: a message, then stamp nothing and go on checking */
                    if (!diag_failed())
                        fz_die("fuzz_parameters", "host_app_meta failed without a message");
                    diag_reset();
                    memset(&meta, 0, sizeof meta);
                }
                stamp_metadata(a, &items, &meta, set.annotation_domain, stamp_enabled, &set);
                node **trees = malloc((items.n + 1) * sizeof *trees);
                int *wide = malloc((items.n + 1) * sizeof *wide);
                for (size_t i = 0; i < items.n; i++) {
                    trees[i] = items.v[i]->root;
                    wide[i] = items.v[i]->seq_wide;
                }
                fz_check_stream(a, st, trees, wide, items.n, true, "fuzz_parameters (rendered objects)");
                for (size_t i = 0; i < items.n; i++)
                    fz_check_json(trees[i], "fuzz_parameters (rendered objects)");
                free(trees);
                free(wide);
            }
            run_ctx_free(&R);
            rlist_free(&items);
            fz_free_fixed(&root, &sub);
        }
    }
    diag_reset();
    strtab_release(st);
    arena_free(a);
    clear_env();
    free(text);
    return 0;
}
