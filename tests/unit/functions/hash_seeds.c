/* Hash tables keyed by texts a package writes start from a fixed seed (the same work on every run: make bench
 * compares instruction counts) and draw a secret one the first time a probe runs long (texts chosen to collide
 * against the fixed start). The Starlark VM's dicts and render-helm-chart's set of ids, as the strtab does. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "functions/function.h"
#include "package/resource.h"
#include "starlark/internal.h"
#include "yaml/load.h"

#include "yaml_unit.h"

enum { SEED = 0x51a7c0de5eedull };

static sl_vm *vm_new(void)
{
    sl_limits lim = {100000000, (uint64_t)512 << 20, 1000, (uint64_t)64 << 20};
    return sl_new(&lim, SEED);
}

/* n strings whose hashes from SEED all fall in the first `window` slots of a 4,096-slot index (and so in one run of
 * any smaller one): found by brute force, as an author who knows the seed would. */
static char (*colliding(size_t n, uint32_t window))[16]
{
    char (*v)[16] = calloc(n, sizeof *v);
    uint64_t x = 88172645463325252ull;
    for (size_t got = 0; got < n;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        snprintf(v[got], sizeof v[got], "k%013llx", (unsigned long long)(x & 0xfffffffffffffull));
        if (((uint32_t)hash_bytes_seeded(SEED, v[got], 14) & 4095) < window)
            got++;
    }
    return v;
}

TEST(starlark_hashes_start_from_the_given_seed)
{
    sl_vm *a = vm_new(), *b = vm_new();
    sl_val s = sl_str(a, "app.kubernetes.io/name", 22);
    CHECK(vm_hash(a, s) == (uint32_t)hash_bytes_seeded(SEED, "app.kubernetes.io/name", 22));
    CHECK(vm_hash(b, sl_str(b, "app.kubernetes.io/name", 22)) == vm_hash(a, s));
    /* ordinary keys never probe far: the seed stays, and with it the work */
    sl_val d = mk_dict(a, SL_DICT);
    char k[32];
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(k, sizeof k, "label-%d", i);
        dict_put(a, d, sl_str(a, k, (size_t)n), sl_str(a, k, (size_t)n));
    }
    CHECK(!sl_reseeded(a));
    CHECK(AS(sl_dict_o, d)->len == 20000);
    sl_free(a);
    sl_free(b);
}

TEST(starlark_colliding_keys_draw_a_secret_seed)
{
    enum { N = 1500 };
    char(*keys)[16] = colliding(N, 4);
    sl_vm *vm = vm_new();
    sl_val d = mk_dict(vm, SL_DICT), other = mk_dict(vm, SL_DICT);
    sl_val first = sl_str(vm, keys[0], 14);
    dict_put(vm, other, first, first); /* a dict and a string hashed before the reseed */
    for (size_t i = 0; i < N; i++) {
        sl_val s = sl_str(vm, keys[i], 14);
        dict_put(vm, d, s, s);
    }
    CHECK(sl_reseeded(vm));
    CHECK(AS(sl_dict_o, d)->len == N);
    /* every key is found, through new strings and through the ones hashed under the old seed */
    for (size_t i = 0; i < N; i++)
        CHECK(dict_find(vm, d, sl_str(vm, keys[i], 14)));
    CHECK(dict_find(vm, other, first) && dict_find(vm, other, sl_str(vm, keys[0], 14)));
    CHECK(dict_find(vm, d, first));
    /* the index holds no long run any more: a probe past the limit would find none to stop at */
    sl_dict_o *o = AS(sl_dict_o, d);
    uint32_t run = 0, longest = 0;
    for (uint32_t i = 0; i < o->idxcap; i++) {
        run = o->idx[i] >= 0 ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    CHECK(longest < 48);
    sl_free(vm);
    free(keys);
}

int render_helm_chart_id_set_check(fn_ctx *c, size_t n, bool v01);

/* ConfigMaps named names[i], as render-helm-chart's input items. */
static int id_set_of(char (*names)[16], size_t n)
{
    rlist items = {0};
    for (size_t i = 0; i < n; i++) {
        char text[128];
        snprintf(text, sizeof text, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n", names[i]);
        node *root = NULL;
        if (yaml_load_one(A, ST, NULL, "in.yaml", text, strlen(text), &root) < 0)
            return -2;
        rlist_push(&items, resource_new(A, root, NULL, "in.yaml", (uint32_t)i));
    }
    fn_ctx c = {.a = A, .st = ST, .items = &items};
    int rc = render_helm_chart_id_set_check(&c, n, false);
    rlist_free(&items);
    return rc;
}

TEST(helm_chart_id_set_keeps_the_fixed_seed_for_ordinary_names)
{
    enum { N = 2000 };
    char(*names)[16] = calloc(N, sizeof *names);
    for (size_t i = 0; i < N; i++)
        snprintf(names[i], sizeof names[i], "cm-%zu", i);
    CHECK(id_set_of(names, N) == 0);
    free(names);
}

TEST(helm_chart_colliding_ids_draw_a_secret_seed)
{
    /* ids "\nConfigMap\n\n<name>" (v0.2+: group, kind, namespace, name) whose fixed-start hashes share a run */
    enum { N = 600 };
    char(*names)[16] = calloc(N, sizeof *names);
    uint64_t x = 88172645463325252ull;
    for (size_t got = 0; got < N;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        snprintf(names[got], sizeof names[got], "c%013llx", (unsigned long long)(x & 0xfffffffffffffull));
        char id[64];
        int n = snprintf(id, sizeof id, "\nConfigMap\n\n%s", names[got]);
        if ((text_hash_fixed(id, (size_t)n) & 2047) < 4)
            got++;
    }
    int rc = id_set_of(names, N);
    if (rc != 1)
        fprintf(stderr, "rc %d\n", rc);
    CHECK(rc == 1);
    free(names);
}
