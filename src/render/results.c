#include "render/results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"

static const char *severity_name(enum severity s)
{
    switch (s) {
    case SEV_INFO: return "info";
    case SEV_WARNING: return "warning";
    case SEV_WARN: return "warn";
    case SEV_ERROR: return "error";
    default: return NULL;
    }
}

static node *str(arena *a, const char *s)
{
    return node_str(a, s ? s : "");
}

static node *result_node(arena *a, const fn_result *r)
{
    node *m = node_map(a);
    map_set(a, m, "message", str(a, r->message));
    if (severity_name(r->severity))
        map_set(a, m, "severity", node_scalar(a, severity_name(r->severity), strlen(severity_name(r->severity)), ST_PLAIN));
    if (r->res && r->res->root) {
        node *ref = node_map(a);
        const char *fields[][2] = {{"apiVersion", res_api_version(r->res)}, {"kind", res_kind(r->res)},
                                   {"name", res_name(r->res)}, {"namespace", res_namespace(r->res)}};
        for (size_t i = 0; i < 4; i++)
            if (fields[i][1] && *fields[i][1])
                map_set(a, ref, fields[i][0], str(a, fields[i][1]));
        if (node_len(ref))
            map_set(a, m, "resourceRef", ref);
    }
    if (r->field) {
        node *f = node_map(a);
        map_set(a, f, "path", str(a, r->field));
        map_set(a, m, "field", f);
    }
    if (r->res && r->res->path) {
        node *f = node_map(a);
        map_set(a, f, "path", str(a, r->res->path));
        if (r->res->index)
            map_set(a, f, "index", node_scalar(a, arena_printf(a, "%u", r->res->index), strlen(arena_printf(a, "%u", r->res->index)), ST_PLAIN));
        map_set(a, m, "file", f);
    }
    return m;
}

int write_results(const run_ctx *R, const char *dir, int exit_code)
{
    arena *a = arena_new();
    node *root = node_map(a);
    map_set(a, root, "apiVersion", node_scalar(a, "kpt.dev/v1", 10, ST_PLAIN));
    map_set(a, root, "kind", node_scalar(a, "FunctionResultList", 18, ST_PLAIN));
    node *md = map_set(a, root, "metadata", node_map(a));
    map_set(a, md, "name", node_scalar(a, "fnresults", 9, ST_PLAIN));
    map_set(a, root, "exitCode", node_scalar(a, exit_code ? "1" : "0", 1, ST_PLAIN));
    node *items = map_set(a, root, "items", node_seq(a));
    for (size_t i = 0; i < R->nreports; i++) {
        const step_report *sr = &R->reports[i];
        node *it = node_map(a);
        map_set(a, it, sr->exec ? "exec" : "image", str(a, sr->ref));
        map_set(a, it, "exitCode", node_scalar(a, sr->exit_code ? "1" : "0", 1, ST_PLAIN));
        if (sr->exit_code && diag_failed())
            map_set(a, it, "stderr", str(a, diag_message()));
        /* A failed step's results hold its error, as the real function's ResourceList would: the catalog's own
         * result where the function recorded it (fn_failure_result), otherwise our error line, severity error. */
        bool fallback = sr->exit_code && !sr->failure_reported && diag_failed();
        if (sr->count || fallback) {
            node *rs = map_set(a, it, "results", node_seq(a));
            for (size_t k = 0; k < sr->count; k++)
                seq_append(a, rs, result_node(a, &R->results.v[sr->first + k]));
            if (fallback)
                seq_append(a, rs, result_node(a, &(fn_result){SEV_ERROR, diag_message(), NULL, NULL}));
        }
        seq_append(a, items, it);
    }
    if (!node_len(items))
        map_delete(root, "items");
    buf b = {0};
    emit_opts eo = {.seq_wide = true, .comments = false};
    emit_yaml(&b, root, &eo);
    /* The directory is the operator's choice and may be a symlink; results.yaml in it is replaced, never written
     * through, so a symlink planted there (say, inside a package) cannot redirect the write. */
    int rc = 0;
    char tmp[64];
    int dfd = -1;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        rc = fail(dir, 0, "results: cannot create the directory: %s", strerror(errno));
    else if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        rc = fail(dir, 0, "results: %s", strerror(errno));
    else if (temp_file_at(dfd, b.data, b.len, 0644, tmp) != 0)
        rc = fail(dir, 0, "results: cannot write results.yaml: %s", strerror(errno));
    else if (renameat(dfd, tmp, dfd, "results.yaml") != 0) {
        rc = fail(dir, 0, "results: cannot write results.yaml: %s", strerror(errno));
        unlinkat(dfd, tmp, 0);
    }
    if (dfd >= 0)
        close(dfd);
    buf_free(&b);
    arena_free(a);
    return rc;
}
