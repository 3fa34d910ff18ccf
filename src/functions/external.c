#include "functions/external.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fsutil.h"

static char scratch[PATH_MAX];

static void remove_tree(const char *path)
{
    /* nftw is not C11/POSIX-2008-strict friendly here; the tree is ours and shallow enough for recursion */
    DIR *d;
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void cleanup_scratch(void)
{
    if (scratch[0])
        remove_tree(scratch);
}

const char *scratch_dir(void)
{
    if (scratch[0])
        return scratch;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/cmp-generate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        scratch[0] = 0;
        return NULL;
    }
    atexit(cleanup_scratch);
    return scratch;
}

int child_timeout_ms(void)
{
    return cmp_limits.child_timeout_s * 1000;
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

static int run(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd, buf *out)
{
    buf err = {0};
    int status = 0;
    child_opts o = {.argv = argv, .env = env, .cwd = cwd, .timeout_ms = child_timeout_ms()};
    if (child_run(&o, out, &err, &status) < 0) {
        buf_free(&err);
        return -1;
    }
    if (status != 0) {
        char summary[600];
        stderr_summary(&err, summary, sizeof summary);
        buf_free(&err);
        return fn_fail(c, NULL, "%s failed (exit %d): %s", what, status, summary[0] ? summary : "no error output");
    }
    buf_free(&err);
    return 0;
}

int run_tool(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd)
{
    buf out = {0};
    int rc = run(c, what, argv, env, cwd, &out);
    buf_free(&out);
    return rc;
}

/* kpt's default file for an object that has none: <namespace>/<kind>_<name>.yaml */
static const char *default_path(fn_ctx *c, const resource *r)
{
    const char *ns = res_namespace(r), *kind = res_kind(r), *name = res_name(r);
    char *k = arena_strdup(c->a, kind ? kind : "object");
    for (char *p = k; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (ns && *ns)
        return arena_printf(c->a, "%s/%s_%s.yaml", ns, k, name ? name : "unnamed");
    return arena_printf(c->a, "%s_%s.yaml", k, name ? name : "unnamed");
}

int run_tool_into_items(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd)
{
    buf out = {0};
    if (run(c, what, argv, env, cwd, &out) < 0) {
        buf_free(&out);
        return -1;
    }
    load_ctx lc = {.a = c->a, .st = c->st};
    rlist got = {0};
    int rc = load_resources_from_text(&lc, c->pkg, "", what, out.data ? out.data : "", out.len, &got);
    buf_free(&out);
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
