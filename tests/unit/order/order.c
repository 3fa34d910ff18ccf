/* src/order: the layered topological sort (cli-utils' Graph.Sort) and the translation into sync waves. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "order/order.h"
#include "util/buf.h"
#include "util/diag.h"

/* layers of a graph given as "from>to" pairs; -1 on a cycle */
static int layers(size_t n, const uint32_t (*edges)[2], size_t m, uint32_t *layer, uint32_t **cycle, size_t *clen)
{
    uint32_t *from = malloc((m + 1) * sizeof *from), *to = malloc((m + 1) * sizeof *to);
    for (size_t i = 0; i < m; i++)
        from[i] = edges[i][0], to[i] = edges[i][1];
    int rc = order_layers(n, m, from, to, NULL, layer, cycle, clen);
    free(from);
    free(to);
    return rc;
}

TEST(order_layers_chain_and_diamond)
{
    /* 0 depends on 1 and 2, both on 3; 4 alone */
    static const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    uint32_t l[5], *cyc;
    size_t clen;
    CHECK(layers(5, e, 4, l, &cyc, &clen) == 0);
    CHECK(l[3] == 0 && l[4] == 0 && l[1] == 1 && l[2] == 1 && l[0] == 2);
    CHECK(cyc == NULL);
}

TEST(order_layers_longest_path_wins)
{
    /* 0 -> 3 directly and 0 -> 1 -> 2 -> 3: 0 lands above the longest path, as the rounds of Kahn's sort put it */
    static const uint32_t e[][2] = {{0, 3}, {0, 1}, {1, 2}, {2, 3}};
    uint32_t l[4], *cyc;
    size_t clen;
    CHECK(layers(4, e, 4, l, &cyc, &clen) == 0);
    CHECK(l[3] == 0 && l[2] == 1 && l[1] == 2 && l[0] == 3);
}

TEST(order_layers_duplicate_edges_count_once)
{
    static const uint32_t e[][2] = {{0, 1}, {0, 1}, {0, 1}};
    uint32_t l[2], *cyc;
    size_t clen;
    CHECK(layers(2, e, 3, l, &cyc, &clen) == 0);
    CHECK(l[1] == 0 && l[0] == 1);
}

TEST(order_layers_self_edge_is_a_cycle_of_one)
{
    static const uint32_t e[][2] = {{1, 0}, {1, 1}};
    uint32_t l[2], *cyc;
    size_t clen;
    CHECK(layers(2, e, 2, l, &cyc, &clen) < 0);
    CHECK(clen == 1 && cyc[0] == 1);
    xfree(cyc);
}

TEST(order_layers_cycle_is_reported_edge_by_edge)
{
    /* 0 -> 1 -> 2 -> 3 -> 1, and 4 -> 0: the cycle is 1, 2, 3 whatever node the walk starts from */
    static const uint32_t e[][2] = {{4, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 1}};
    uint32_t l[5], *cyc;
    size_t clen;
    CHECK(layers(5, e, 5, l, &cyc, &clen) < 0);
    CHECK(clen == 3);
    /* every listed node depends on the next, and the last on the first */
    for (size_t k = 0; k < clen; k++) {
        bool found = false;
        for (size_t i = 0; i < 5; i++)
            found = found || (e[i][0] == cyc[k] && e[i][1] == cyc[(k + 1) % clen]);
        CHECK(found);
    }
    xfree(cyc);
}

TEST(order_layers_wide_graph)
{
    /* 100,000 objects all depending on one: two layers */
    enum { N = 100000 };
    uint32_t *from = malloc(N * sizeof *from), *to = malloc(N * sizeof *to), *l = malloc(N * sizeof *l), *cyc;
    for (uint32_t i = 1; i < N; i++)
        from[i - 1] = i, to[i - 1] = 0;
    size_t clen;
    int rc = order_layers(N, N - 1, from, to, NULL, l, &cyc, &clen);
    bool ok = rc == 0 && l[0] == 0;
    for (uint32_t i = 1; i < N && ok; i++)
        ok = l[i] == 1;
    free(from);
    free(to);
    free(l);
    CHECK(ok);
}

TEST(order_layers_deep_graph)
{
    /* a chain of 200,000 (no recursion: a deep graph needs no stack); then closed into one cycle of all of them */
    enum { N = 200000 };
    uint32_t *from = malloc(N * sizeof *from), *to = malloc(N * sizeof *to), *l = malloc(N * sizeof *l), *cyc;
    for (uint32_t i = 0; i + 1 < N; i++)
        from[i] = i, to[i] = i + 1;
    size_t clen;
    int rc = order_layers(N, N - 1, from, to, NULL, l, &cyc, &clen);
    bool ok = rc == 0 && l[N - 1] == 0 && l[0] == N - 1;
    from[N - 1] = N - 1, to[N - 1] = 0;
    int rc2 = order_layers(N, N, from, to, NULL, l, &cyc, &clen);
    bool ok2 = rc2 < 0 && clen == N;
    xfree(cyc);
    free(from);
    free(to);
    free(l);
    CHECK(ok);
    CHECK(ok2);
}

TEST(order_layers_zero_weight_barrier_costs_no_layer)
{
    /* 0 and 1 in wave 1, barrier 3 over them, 2 (a later wave) waits on the barrier: 2 is one layer above 1 */
    static const uint32_t from[] = {0, 3, 3, 2}, to[] = {1, 0, 1, 3};
    static const uint8_t zero[] = {0, 0, 0, 1};
    uint32_t l[4], *cyc;
    size_t clen;
    CHECK(order_layers(4, 4, from, to, zero, l, &cyc, &clen) == 0);
    CHECK(l[1] == 0 && l[0] == 1 && l[3] == 1 && l[2] == 2);
}

TEST(order_layers_empty_graph)
{
    uint32_t l[1], *cyc;
    size_t clen;
    CHECK(order_layers(0, 0, NULL, NULL, NULL, l, &cyc, &clen) == 0);
}

/* ---- the translation, on resources ---- */

static const char *wave_of(struct fx *f, const char *name)
{
    for (size_t i = 0; i < f->items.n; i++)
        if (!strcmp(res_name(f->items.v[i]), name))
            return res_annotation(f->items.v[i], "argocd.argoproj.io/sync-wave");
    return "(no such object)";
}

#define CM(name, extra) "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " name "\n  namespace: n\n" extra
#define DEP(ref) "  annotations:\n    config.kubernetes.io/depends-on: " ref "\n"

TEST(order_auto_without_annotations_changes_nothing)
{
    struct fx f;
    fx_open(&f, CM("b", "") "---\n" CM("a", "  annotations:\n    argocd.argoproj.io/sync-wave: \"3\"\n"));
    order_opts o = {0};
    CHECK(order_apply(f.a, &f.items, &o) == 0);
    CHECK(!strcmp(res_name(f.items.v[0]), "b"));
    CHECK(wave_of(&f, "b") == NULL);
    CHECK_STR(wave_of(&f, "a"), "3");
    fx_close(&f);
}

TEST(order_kpt_mode_orders_implicit_edges_alone)
{
    struct fx f;
    fx_open(&f, CM("a", "") "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n");
    order_opts o = {.mode = "kpt"};
    CHECK(order_apply(f.a, &f.items, &o) == 0);
    CHECK_STR(wave_of(&f, "n"), "0");
    CHECK_STR(wave_of(&f, "a"), "1");
    CHECK_STR(res_kind(f.items.v[0]), "Namespace"); /* emitted in apply order */
    fx_close(&f);
}

TEST(order_explicit_waves_keep_their_order)
{
    /* c (wave -5) before everything without a wave (0), which is before b (wave 10); a depends on z */
    struct fx f;
    fx_open(&f, CM("a", DEP("/namespaces/n/ConfigMap/z")) "---\n" CM("z", "") "---\n"
                    CM("b", "  annotations:\n    argocd.argoproj.io/sync-wave: \"10\"\n") "---\n"
                    CM("c", "  annotations:\n    helm.sh/hook-weight: \"-5\"\n"));
    order_opts o = {0};
    CHECK(order_apply(f.a, &f.items, &o) == 0);
    CHECK_STR(wave_of(&f, "c"), "0");
    CHECK_STR(wave_of(&f, "z"), "1");
    CHECK_STR(wave_of(&f, "a"), "2");
    CHECK_STR(wave_of(&f, "b"), "3");
    fx_close(&f);
}

TEST(order_phases_are_layered_apart)
{
    /* a PostSync hook on a Sync object: met by the phase order, so the hook is wave 0 of its phase */
    struct fx f;
    fx_open(&f, CM("hook", "  annotations:\n    argocd.argoproj.io/hook: PostSync\n"
                           "    config.kubernetes.io/depends-on: /namespaces/n/ConfigMap/b\n") "---\n"
                CM("b", DEP("/namespaces/n/ConfigMap/c")) "---\n" CM("c", ""));
    order_opts o = {0};
    CHECK(order_apply(f.a, &f.items, &o) == 0);
    CHECK_STR(wave_of(&f, "hook"), "0");
    CHECK_STR(wave_of(&f, "b"), "1");
    CHECK_STR(res_name(f.items.v[2]), "hook");
    fx_close(&f);
}

TEST(order_errors_leave_one_message)
{
    struct fx f;
    order_opts o = {0};
    fx_open(&f, CM("a", DEP("/namespaces/n/ConfigMap/a")));
    CHECK(order_apply(f.a, &f.items, &o) < 0);
    CHECK(strstr(diag_message(), "dependency cycle: /namespaces/n/ConfigMap/a -> /namespaces/n/ConfigMap/a"));
    fx_close(&f);
    diag_reset();
    fx_open(&f, CM("a", DEP("a/b")));
    CHECK(order_apply(f.a, &f.items, &o) < 0);
    CHECK(strstr(diag_message(), "reference 1 \"a/b\": expected 3 or 5 fields"));
    fx_close(&f);
    diag_reset();
    fx_open(&f, CM("a", DEP("/wrong/n/ConfigMap/b")) "---\n" CM("b", ""));
    CHECK(order_apply(f.a, &f.items, &o) < 0);
    CHECK(strstr(diag_message(), "expected 3 or 5 fields"));
    fx_close(&f);
    diag_reset();
}

TEST(order_unknown_type_gets_skip_dry_run_unless_served)
{
    struct fx f;
    fx_open(&f, CM("a", DEP("example.com/Widget/w")) "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n"
                                                     "  name: w\n  annotations:\n    argocd.argoproj.io/sync-options: "
                                                     "Prune=false\n");
    order_opts o = {0};
    CHECK(order_apply(f.a, &f.items, &o) == 0);
    CHECK_STR(res_annotation(f.items.v[0], "argocd.argoproj.io/sync-options"), "Prune=false,SkipDryRunOnMissingResource=true");
    fx_close(&f);
    diag_reset();
    fx_open(&f, CM("a", DEP("example.com/Widget/w")) "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n"
                                                     "  name: w\n");
    order_opts served = {.kube_api_versions = "v1,v1/ConfigMap,example.com/v1,example.com/v1/Widget"};
    CHECK(order_apply(f.a, &f.items, &served) == 0);
    CHECK(res_annotation(f.items.v[0], "argocd.argoproj.io/sync-options") == NULL);
    fx_close(&f);
    diag_reset();
}

TEST(order_mode_values)
{
    CHECK(order_mode_rule("auto") == NULL && order_mode_rule("kpt") == NULL && order_mode_rule("off") == NULL);
    CHECK(order_mode_rule("Auto") != NULL);
}

TEST(order_long_cycle_is_named_in_one_bounded_line)
{
    /* 500 ConfigMaps in one cycle: the message names its start, how many it leaves out, and the way back */
    buf y = {0};
    for (int i = 0; i < 500; i++)
        buf_printf(&y, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n  namespace: n\n  annotations:\n"
                       "    config.kubernetes.io/depends-on: /namespaces/n/ConfigMap/c%d\n",
                   i, (i + 1) % 500);
    struct fx f;
    fx_open(&f, buf_cstr(&y));
    buf_free(&y);
    order_opts o = {0};
    int rc = order_apply(f.a, &f.items, &o);
    char m[2048];
    snprintf(m, sizeof m, "%s", diag_message());
    fx_close(&f);
    diag_reset();
    CHECK(rc < 0);
    CHECK(strstr(m, "dependency cycle: /namespaces/n/ConfigMap/c0 -> /namespaces/n/ConfigMap/c1 -> "));
    CHECK(strstr(m, " more) -> /namespaces/n/ConfigMap/c499 -> /namespaces/n/ConfigMap/c0"));
    CHECK(strlen(m) < 1600);
}
