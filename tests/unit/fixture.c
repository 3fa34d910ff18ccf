#include "fixture.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "yaml/load.h"

static int add_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct fx *f = ud;
    rlist_push(&f->items, resource_new(f->a, root, NULL, f->file, index));
    return 0;
}

void fx_add(struct fx *f, const char *file, const char *yaml)
{
    f->file = file;
    yaml_load(f->a, f->st, NULL, file, yaml, strlen(yaml), add_doc, f);
}

void fx_open(struct fx *f, const char *yaml)
{
    memset(f, 0, sizeof *f);
    f->a = arena_new();
    f->st = strtab_new(f->a);
    if (yaml)
        fx_add(f, "r.yaml", yaml);
}

void fx_close(struct fx *f)
{
    rlist_free(&f->items);
    free(f->results.v);
    strtab_release(f->st);
    arena_free(f->a);
    diag_reset();
}

int fx_apply(struct fx *f, const char *fn, const char *config, const char *config_file)
{
    node *cfg = NULL;
    if (config)
        yaml_load_one(f->a, f->st, NULL, config_file, config, strlen(config), &cfg);
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = config_file,
                .results = &f->results};
    return fn_lookup(fn)->run(&c);
}
