#include "functions/tools/external.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"

const engine_ctx *fn_engine(fn_ctx *c)
{
    engine_ctx *e = arena_alloc(c->a, sizeof *e);
    const fn_host *h = c->host;
    *e = (engine_ctx){.a = c->a, .st = c->st, .file = c->config_file, .line = c->config_line, .pkg_dir = step_dir(c),
                      .repo_root = h ? h->repo_root : NULL, .lim = fn_limits(c)};
    if (h) {
        e->helm = (engine_helm){h->helm_bin, h->path, h->helm_credentials_dir, h->helm_plain_http_registries,
                                h->helm_verify_prov, h->helm_keyring};
        e->child = (engine_child){h->tmpdir, h->child_env, h->child_timeout_ms, h->child_max_memory_mb,
                                  h->child_memory_shared, h->child_max_cpu_seconds, h->child_max_file_mb,
                                  h->child_max_procs, h->child_settings_error};
    }
    return e;
}

const char *scratch_dir(const fn_host *h)
{
    return engine_scratch_dir(h ? h->tmpdir : NULL);
}

const char *pass_text(fn_ctx *c, child_fds *f, const char *text, size_t len)
{
    return engine_pass_text(fn_engine(c), f, text, len);
}

const char *step_dir(fn_ctx *c)
{
    return c->pkg && c->pkg->abs ? c->pkg->abs : ".";
}

const char *inside_package(fn_ctx *c, const node *at, const char *what, const char *rel)
{
    if (!safe_relative_path(rel))
        return fn_fail(c, at, "%s \"%s\" must be a relative path inside the package (no \"..\", not absolute)", what, rel),
               NULL;
    const char *dir = step_dir(c);
    char *full = arena_printf(c->a, "%s/%s", dir, rel);
    char real_dir[PATH_MAX];
    if (!realpath(dir, real_dir))
        return fn_fail(c, at, "cannot resolve the package directory"), NULL;
    if (!file_exists(full))
        return fn_fail(c, at, "%s \"%s\" does not exist in the package", what, rel), NULL;
    if (!inside(real_dir, full))
        return fn_fail(c, at, "%s \"%s\" leads outside the package (symlink)", what, rel), NULL;
    return full;
}

int run_tool(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd)
{
    return engine_run_tool(fn_engine(c), what, argv, env, cwd);
}

int run_tool_fds(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                 child_fds *fds)
{
    return engine_run_tool_fds(fn_engine(c), what, argv, env, cwd, fds);
}

int run_tool_fds_stderr(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                        child_fds *fds, buf *err_text)
{
    return engine_run_tool_fds_stderr(fn_engine(c), what, argv, env, cwd, fds, err_text);
}

static int feed_yaml(void *ud, const char *data, size_t len)
{
    return yaml_stream_feed(ud, data, len);
}

/* kpt's default file for an object that has none: <namespace>/<kind>_<name>.yaml. Built by hand: it runs once per
 * object of a tool's output (6,389 times for a 4 MB chart), where two formatting passes cost 2,000 instructions. */
static const char *default_path(fn_ctx *c, const resource *r)
{
    const char *ns = res_namespace(r), *kind = res_kind(r), *name = res_name(r);
    if (!kind)
        kind = "object";
    if (!name)
        name = "unnamed";
    size_t nl = ns && *ns ? strlen(ns) + 1 : 0, kl = strlen(kind), ml = strlen(name);
    char *out = arena_alloc(c->a, nl + kl + 1 + ml + sizeof ".yaml"), *p = out;
    if (nl) {
        memcpy(p, ns, nl - 1);
        p += nl - 1;
        *p++ = '/';
    }
    for (size_t i = 0; i < kl; i++)
        *p++ = kind[i] >= 'A' && kind[i] <= 'Z' ? (char)(kind[i] - 'A' + 'a') : kind[i];
    *p++ = '_';
    memcpy(p, name, ml);
    memcpy(p + ml, ".yaml", sizeof ".yaml");
    return out;
}

int run_tool_into_items(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd)
{
    child_fds none = {0};
    return run_tool_into_items_fds(c, what, argv, env, cwd, &none);
}

int run_tool_into_items_fds(fn_ctx *c, const char *what, const char *const *argv, const char *const *env,
                            const char *cwd, child_fds *fds)
{
    /* parsed while the tool writes: a document that breaks a rule stops the tool there (and nothing of a tool
     * that fails is kept, whatever it wrote before) */
    load_ctx lc = {.a = c->a, .st = c->st, .limits = fn_limits(c)};
    rlist got = {0};
    yaml_stream *ys = load_resources_stream(&lc, c->pkg, "", what, &got);
    int rc = engine_run_tool_sink(fn_engine(c), what, argv, env, cwd, fds, feed_yaml, ys);
    if (rc == 0)
        rc = yaml_stream_end(ys);
    yaml_stream_free(ys);
    for (size_t i = 0; rc == 0 && i < got.n; i++) {
        resource *r = got.v[i];
        if (r->flags & R_KUSTOMIZE)
            continue;
        r->path = default_path(c, r);
        r->index = 0;
        rlist_push(c->items, r);
    }
    rlist_free(&got);
    return rc;
}
