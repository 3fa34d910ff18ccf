#include "engine/engine.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/path.h"

/* Where an error at node at points: the context's file (functionConfig without one), the node's line or the
 * context's. */
static const char *where(const engine_ctx *e, const node *at, int *line)
{
    uint32_t l = node_line(at);
    *line = l ? (int)l : e->line;
    return e->file ? e->file : "functionConfig";
}

int engine_fail(const engine_ctx *e, const node *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line;
    const char *file = where(e, at, &line);
    return fail(file, line, "%s", msg);
}

int engine_locate(const engine_ctx *e, const node *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line;
    const char *file = where(e, at, &line);
    return diag_locate(file, line, "%s", msg);
}

const char *engine_repo_root(const engine_ctx *e)
{
    if (e->repo_root)
        return e->repo_root;
    const char *dir = e->pkg_dir ? e->pkg_dir : ".";
    char real[PATH_MAX];
    return realpath(dir, real) ? arena_strdup(e->a, real) : dir;
}

const char *engine_repo_relative(const engine_ctx *e, const char *path)
{
    const char *root = engine_repo_root(e);
    size_t rl = strlen(root);
    if (rl == 1 && root[0] == '/')
        return path[1] ? path + 1 : ".";
    if (!path_under(path, root, rl))
        return path;
    return path[rl] ? path + rl + 1 : ".";
}
