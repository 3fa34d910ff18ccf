/* `cmp-generate fn NAME`: a built-in as a KRM function (ResourceList on stdin, ResourceList on stdout), so that
 * kpt's exec: and kustomize's exec KRM functions can call it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings/host.h"
#include "functions/function.h"
#include "pipeline/executor.h"
#include "cmd/cmd.h"
#include "render/render.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

static int read_stdin(char **out, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *d = xmalloc(cap);
    for (;;) {
        /* checked on what was read, not on the buffer's size: the limit holds to the byte */
        if (n > host_limits()->max_file_bytes) {
            xfree(d);
            return fail("stdin", 0, "input is over %zu bytes (max-file-bytes; raise it with CMP_MAX_FILE_BYTES)",
                        host_limits()->max_file_bytes);
        }
        if (n + 1 >= cap)
            d = xrealloc(d, cap *= 2);
        ssize_t r = read(STDIN_FILENO, d + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            xfree(d);
            return fail("stdin", 0, "cannot read: %s", strerror(errno));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    d[n] = 0;
    *out = d;
    *len = n;
    return 0;
}

static const char *annotation(const node *item, const char *a, const char *b)
{
    const char *v = path_str(item, "metadata", "annotations", a, NULL);
    return v ? v : path_str(item, "metadata", "annotations", b, NULL);
}

/* Items the function added carry no path yet: give them kpt's annotations so the caller can place them. */
static void annotate_new(arena *a, resource *r)
{
    if (!r->path || annotation(r->root, "internal.config.kubernetes.io/path", "config.kubernetes.io/path"))
        return;
    node *ann = map_ensure_map(a, map_ensure_map(a, r->root, "metadata"), "annotations");
    if (!ann)
        return;
    map_set_str(a, ann, "config.kubernetes.io/path", r->path);
    map_set_str(a, ann, "internal.config.kubernetes.io/path", r->path);
}

static int krm_function(const char *name, buf *out)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    rlist items = {0};
    fn_results results = {0};
    int rc = -1;
    char *text = NULL;
    size_t len = 0;
    node *rl = NULL;
    diag_set_step("read");
    const fn_def *fn = fn_lookup(fn_basename(a, name));
    if (!fn) {
        fail(NULL, 0, "unknown function \"%s\"; built-in functions: %s", name, fn_names(a));
        goto done;
    }
    if (read_stdin(&text, &len) < 0 || yaml_load_one(a, st, limits_yaml(host_limits()), "stdin", text, len, &rl) < 0)
        goto done;
    if (!rl || !is_map(rl) || !scalar_is(map_get(rl, "kind"), "ResourceList")) {
        fail("stdin", (int)node_line(rl), "expected a ResourceList (kind: ResourceList)");
        goto done;
    }
    node *list = map_get(rl, "items");
    if (list && !is_null(list) && !is_seq(list)) {
        fail("stdin", (int)node_line(list), "ResourceList items must be a list");
        goto done;
    }
    seq_foreach(list, i, it) {
        if (!is_map(it)) {
            fail("stdin", (int)node_line(it), "ResourceList items must be objects");
            goto done;
        }
        const char *path = annotation(it, "internal.config.kubernetes.io/path", "config.kubernetes.io/path");
        const char *index = annotation(it, "internal.config.kubernetes.io/index", "config.kubernetes.io/index");
        resource *r = resource_new(a, it, NULL, path, index ? (uint32_t)strtoul(index, NULL, 10) : 0);
        rlist_push(&items, r);
    }
    diag_set_step(arena_printf(a, "fn (%s)", fn->name));
    node *config = map_get(rl, "functionConfig");
    fn_host host;
    host_from_env(&host);
    host_find_repo_root(a, &host, ".");
    fn_ctx c = {.a = a, .st = st, .items = &items, .config = is_null(config) ? NULL : config, .results = &results,
                .config_file = "functionConfig", .host = &host};
    const char *vwarn; /* `cmp-generate fn set-labels:v0.1.5` behaves as that release */
    fn_version_resolve(a, fn->name, fn_ref_tag(a, name), NULL, &c.version, &vwarn);
    if (vwarn)
        diag_warn("%s", vwarn);
    if (fn->run(&c) < 0)
        goto done;
    rlist_compact(&items);
    node *outl = node_map(a);
    map_set(a, outl, "apiVersion", node_str(a, scalar(map_get(rl, "apiVersion")) ? scalar(map_get(rl, "apiVersion"))
                                                                                 : "config.kubernetes.io/v1"));
    map_set(a, outl, "kind", node_str(a, "ResourceList"));
    node *oitems = map_set(a, outl, "items", node_seq(a));
    for (size_t i = 0; i < items.n; i++) {
        annotate_new(a, items.v[i]);
        seq_append(a, oitems, items.v[i]->root);
    }
    if (results.n) {
        node *rs = map_set(a, outl, "results", node_seq(a));
        static const char *sev[] = {"info", "warning", "error", NULL, "warn"};
        for (size_t i = 0; i < results.n; i++) {
            node *m = node_map(a);
            map_set(a, m, "message", node_str(a, results.v[i].message));
            if (sev[results.v[i].severity])
                map_set(a, m, "severity", node_str(a, sev[results.v[i].severity]));
            seq_append(a, rs, m);
        }
    }
    /* keep_style: an item comes back in the layout kpt sent it in (a one-line "|-" stays one), as a kyaml
     * function gives back the nodes it did not change; kpt writes the file from what we return */
    emit_opts eo = {.seq_wide = false, .comments = true, .keep_style = true};
    emit_yaml(out, outl, &eo);
    rc = 0;
done:
    xfree(text);
    xfree(results.v);
    rlist_free(&items);
    strtab_release(st);
    arena_free(a);
    return rc;
}

int cmd_fn(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-')
        return cmd_usage_error("", "%s", "usage: cmp-generate fn NAME < resource-list.yaml");
    buf out = {0};
    if (krm_function(argv[0], &out) < 0) {
        cmd_say_error("");
        buf_free(&out);
        return 1;
    }
    int rc = write_all(STDOUT_FILENO, out.data ? out.data : "", out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}
