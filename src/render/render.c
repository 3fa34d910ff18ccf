#include "render/render.h"

#include <stdlib.h>

#include "argocd/metadata.h"
#include "package/package.h"
#include "pipeline/executor.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"


static int emit_stream(const rlist *items, bool json, buf *out)
{
    for (size_t i = 0; i < items->n; i++) {
        const resource *r = items->v[i];
        if (json) {
            emit_json(out, r->root);
            buf_putc(out, '\n');
        } else {
            if (i)
                buf_puts(out, "---\n");
            emit_opts eo = {.seq_wide = r->seq_wide, .comments = true};
            emit_yaml(out, r->root, &eo);
        }
        if (out->len > cmp_limits.max_output_bytes)
            return fail(NULL, 0, "output is over %zu bytes (max-output-bytes; Argo CD rejects responses over its gRPC limit; raise it with CMP_MAX_OUTPUT_BYTES)",
                        cmp_limits.max_output_bytes);
    }
    return 0;
}

int render(const render_opts *o, buf *out)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package *root = NULL;
    rlist items = {0};
    run_ctx R = {.a = a, .st = st};
    const char *domain;
    app_meta meta;
    int rc = -1;

    diag_set_step("read");
    load_ctx lc = {.a = a, .st = st};
    if (annotation_domain(&domain) < 0 || package_load(&lc, o->dir, true, &root) < 0)
        goto done;
    if (hydrate(&R, root, &items) < 0)
        goto done;
    diag_set_step("annotate");
    app_meta_from_env(&meta);
    prepare_for_argocd(a, &items, &meta, domain, o->keep_config);
    diag_set_step("emit");
    rc = emit_stream(&items, o->json, out);
done:
    rlist_free(&items);
    free(R.results.v);
    package_free(root);
    strtab_release(st);
    arena_free(a);
    return rc;
}
