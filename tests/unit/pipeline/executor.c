/* The executor: selection passes each resource once, configPath is the live copy (as it was when the step started,
 * one copy however many steps name it), validators change nothing. */
#include <stdlib.h>

#include "check.h"
#include "pipeline/executor.h"
#include "util/diag.h"
#include "yaml/load.h"

static int calls;
static int seen;

static int count_items(fn_ctx *c)
{
    calls++;
    seen = (int)c->items->n;
    for (size_t i = 0; i < c->items->n; i++)
        map_set_str(c->a, map_ensure_map(c->a, c->items->v[i]->root, "metadata"), "touched", "yes");
    return 0;
}

static const char *config_seen;
static int read_config(fn_ctx *c)
{
    config_seen = path_str(c->config, "data", "value", NULL);
    return 0;
}

static int edit_config_item(fn_ctx *c)
{
    for (size_t i = 0; i < c->items->n; i++)
        if (!strcmp(res_name(c->items->v[i]), "cfg"))
            map_set_str(c->a, map_get(c->items->v[i]->root, "data"), "value", "edited");
    return 0;
}

static int drop_and_add(fn_ctx *c)
{
    c->items->v[0] = NULL;
    node *n = NULL;
    const char *y = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\n";
    yaml_load_one(c->a, c->st, NULL, "new", y, strlen(y), &n);
    fn_new_resource(c, n, "added.yaml");
    return 0;
}

static const fn_def counting = {.name = "count", .summary = "", .run = count_items};
static const fn_def reading = {.name = "read", .summary = "", .run = read_config};
static const fn_def editing = {.name = "edit", .summary = "", .run = edit_config_item};
static const fn_def dropping = {.name = "drop", .summary = "", .run = drop_and_add};

struct world {
    arena *a;
    strtab *st;
    package pkg;
    rlist items;
    run_ctx R;
    config_copies cfg; /* what read_package gives the steps naming cfg.yaml */
};

static void world(struct world *w)
{
    memset(w, 0, sizeof *w);
    w->a = arena_new();
    w->st = strtab_new(w->a);
    w->pkg.rel = "";
    const char *names[] = {"cfg", "a", "b", "c"};
    for (int i = 0; i < 4; i++) {
        const char *y = arena_printf(w->a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  value: v%d\n",
                                     names[i], i);
        node *n = NULL;
        yaml_load_one(w->a, w->st, NULL, "x", y, strlen(y), &n);
        resource *r = resource_new(w->a, n, &w->pkg, i == 0 ? "cfg.yaml" : arena_printf(w->a, "%s.yaml", names[i]), 0);
        rlist_push(&w->pkg.own, r);
        rlist_push(&w->items, r);
    }
    w->R.a = w->a;
    w->R.st = w->st;
    w->cfg.as_read = node_clone(w->a, w->pkg.own.v[0]->root);
}

static void unworld(struct world *w)
{
    rlist_free(&w->items);
    rlist_free(&w->pkg.own);
    run_ctx_free(&w->R);
    strtab_release(w->st);
    arena_free(w->a);
}

TEST(resource_matching_two_selectors_is_passed_once)
{
    struct world w;
    world(&w);
    selector sel[2] = {{.kind = "ConfigMap"}, {.name = "a"}};
    step s = {.fn = &counting, .label = "t", .selectors = sel, .nselectors = 2};
    calls = seen = 0;
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    CHECK(calls == 1 && seen == 4);
    unworld(&w);
}

TEST(config_path_reads_the_current_in_memory_copy)
{
    struct world w;
    world(&w);
    step edit = {.fn = &editing, .label = "edit"};
    step read = {.fn = &reading, .label = "read", .config_path = "cfg.yaml", .config_copies = &w.cfg};
    CHECK(run_step(&w.R, &w.pkg, &edit, &w.items) == 0);
    CHECK(run_step(&w.R, &w.pkg, &read, &w.items) == 0);
    CHECK_STR(config_seen, "edited");
    CHECK(w.items.v[0]->flags & R_CONFIG);
    unworld(&w);
}

/* kpt hands a function its config as the step found it: a step that edits the item its config came from keeps
 * reading the old config; the next step reads the edit. */
static const char *before_edit, *after_edit;
static int edit_own_config_item(fn_ctx *c)
{
    before_edit = path_str(c->config, "data", "value", NULL);
    for (size_t i = 0; i < c->items->n; i++)
        if (!strcmp(res_name(c->items->v[i]), "cfg"))
            map_set_str(c->a, map_get(c->items->v[i]->root, "data"), "value",
                        arena_printf(c->a, "%s+", path_str(c->items->v[i]->root, "data", "value", NULL)));
    after_edit = path_str(c->config, "data", "value", NULL);
    return 0;
}
static const fn_def editing_own = {.name = "edit-own", .summary = "", .run = edit_own_config_item};

TEST(config_stays_as_the_step_found_it_and_the_next_step_sees_the_edit)
{
    struct world w;
    world(&w);
    step s = {.fn = &editing_own, .label = "e", .config_path = "cfg.yaml", .config_copies = &w.cfg};
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    CHECK_STR(before_edit, "v0");
    CHECK_STR(after_edit, "v0");
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    CHECK_STR(before_edit, "v0+");
    CHECK_STR(after_edit, "v0+");
    CHECK_STR(path_str(w.items.v[0]->root, "data", "value", NULL), "v0++");
    unworld(&w);
}

static const node *config_given;
static int note_config(fn_ctx *c)
{
    config_given = c->config;
    return 0;
}
static const fn_def noting = {.name = "note", .summary = "", .run = note_config};

/* Steps naming one object share one copy of it, brought up to date for each: memory is the object's, not
 * steps x object. */
TEST(config_copy_serves_again_brought_up_to_date)
{
    struct world w;
    world(&w);
    step s = {.fn = &noting, .label = "n", .config_path = "cfg.yaml", .config_copies = &w.cfg};
    step edit = {.fn = &editing, .label = "edit"};
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    const node *first = config_given;
    CHECK(first && first != w.items.v[0]->root);
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    CHECK(config_given == first);
    CHECK(run_step(&w.R, &w.pkg, &edit, &w.items) == 0);
    size_t before = arena_footprint(w.a);
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    CHECK(config_given == first);
    CHECK(arena_footprint(w.a) == before);
    CHECK_STR(path_str(config_given, "data", "value", NULL), "edited");
    CHECK(node_is_copy_of(config_given, w.items.v[0]->root));
    unworld(&w);
}

/* A function may edit the config it was handed (Argo CD's setters parameter edits apply-setters'): the next step
 * gets a fresh copy, whether the config is the live item or the file as read after an earlier step removed it. */
static int scribble_config(fn_ctx *c)
{
    map_set_str(c->a, map_get(c->config, "data"), "value", "scribbled");
    return 0;
}
static int drop_cfg(fn_ctx *c)
{
    for (size_t i = 0; i < c->items->n; i++)
        if (c->items->v[i] && !strcmp(res_name(c->items->v[i]), "cfg"))
            c->items->v[i] = NULL;
    return 0;
}
static const fn_def scribbling = {.name = "scribble", .summary = "", .run = scribble_config};
static const fn_def dropping_cfg = {.name = "drop-cfg", .summary = "", .run = drop_cfg};

TEST(config_edited_by_its_function_is_not_handed_on)
{
    struct world w;
    world(&w);
    step scribble = {.fn = &scribbling, .label = "s", .config_path = "cfg.yaml", .config_copies = &w.cfg};
    step read = {.fn = &reading, .label = "read", .config_path = "cfg.yaml", .config_copies = &w.cfg};
    step drop = {.fn = &dropping_cfg, .label = "drop"};
    CHECK(run_step(&w.R, &w.pkg, &scribble, &w.items) == 0);
    CHECK(run_step(&w.R, &w.pkg, &read, &w.items) == 0);
    CHECK_STR(config_seen, "v0");
    CHECK(run_step(&w.R, &w.pkg, &drop, &w.items) == 0);
    CHECK(w.items.n == 3);
    CHECK(run_step(&w.R, &w.pkg, &scribble, &w.items) == 0);
    CHECK(run_step(&w.R, &w.pkg, &read, &w.items) == 0);
    CHECK_STR(config_seen, "v0");
    CHECK_STR(path_str(w.cfg.as_read, "data", "value", NULL), "v0");
    unworld(&w);
}

TEST(validators_work_on_copies)
{
    struct world w;
    world(&w);
    step s = {.fn = &counting, .label = "v", .validator = true};
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    for (size_t i = 0; i < w.items.n; i++)
        CHECK(path_get(w.items.v[i]->root, "metadata", "touched", NULL) == NULL);
    unworld(&w);
}

TEST(selected_output_merges_back_in_place)
{
    struct world w;
    world(&w);
    selector sel[1] = {{.name = "b"}};
    step s = {.fn = &dropping, .label = "d", .selectors = sel, .nselectors = 1};
    CHECK(run_step(&w.R, &w.pkg, &s, &w.items) == 0);
    CHECK(w.items.n == 4);
    CHECK_STR(res_name(w.items.v[0]), "cfg");
    CHECK_STR(res_name(w.items.v[1]), "a");
    CHECK_STR(res_name(w.items.v[2]), "c");
    CHECK_STR(res_name(w.items.v[3]), "added");
    unworld(&w);
}

/* Shared value nodes (fn_def.shares_values): set-labels puts one "prod" node on every object; a function that
 * writes values in place (scalar_set, as search-replace or apply-replacements do) gets the items with their own
 * copies first, so its edit of one object shows in no other, and no mutator stops on a shared node. */
extern const fn_def fn_set_labels;
static int write_b_label(fn_ctx *c)
{
    for (size_t i = 0; i < c->items->n; i++)
        if (!strcmp(res_name(c->items->v[i]), "b")) {
            node *v = path_get(c->items->v[i]->root, "metadata", "labels", "env", NULL);
            scalar_set(c->a, v, "edited", 6, SCALAR_AS_STRING);
        }
    return 0;
}
static const fn_def writing = {.name = "write", .summary = "", .run = write_b_label};

TEST(shared_label_values_get_own_copies_before_an_in_place_edit)
{
    struct world w;
    world(&w);
    node *cm = node_map(w.a);
    map_set_str(w.a, cm, "env", "prod");
    step label = {.fn = &fn_set_labels, .label = "set-labels", .config_map = cm};
    CHECK(fn_set_labels.shares_values);
    CHECK(run_step(&w.R, &w.pkg, &label, &w.items) == 0);
    /* one node for all: what the memory is saved by */
    node *va = path_get(w.items.v[1]->root, "metadata", "labels", "env", NULL);
    node *vc = path_get(w.items.v[3]->root, "metadata", "labels", "env", NULL);
    CHECK(va && va == vc);
    CHECK(w.R.shared_values);
    step write = {.fn = &writing, .label = "write"};
    CHECK(run_step(&w.R, &w.pkg, &write, &w.items) == 0);
    CHECK_STR(path_str(w.items.v[2]->root, "metadata", "labels", "env", NULL), "edited");
    CHECK_STR(path_str(w.items.v[1]->root, "metadata", "labels", "env", NULL), "prod");
    CHECK_STR(path_str(w.items.v[3]->root, "metadata", "labels", "env", NULL), "prod");
    unworld(&w);
    /* set-labels twice, the second with another value: each object's shared value is replaced in its own map, the
     * shared node never written */
    world(&w);
    cm = node_map(w.a);
    map_set_str(w.a, cm, "env", "prod");
    label.config_map = cm;
    CHECK(run_step(&w.R, &w.pkg, &label, &w.items) == 0);
    va = path_get(w.items.v[1]->root, "metadata", "labels", "env", NULL);
    map_set_str(w.a, cm, "env", "dev");
    CHECK(run_step(&w.R, &w.pkg, &label, &w.items) == 0);
    for (size_t i = 0; i < w.items.n; i++)
        CHECK_STR(path_str(w.items.v[i]->root, "metadata", "labels", "env", NULL), "dev");
    CHECK_STR(scalar(va), "prod");
    unworld(&w);
}
