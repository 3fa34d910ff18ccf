#include "functions/tools/confine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "functions/tools/external.h"

const char *repo_root(fn_ctx *c)
{
    return engine_repo_root(fn_engine(c));
}

const char *repo_relative(fn_ctx *c, const char *path)
{
    return engine_repo_relative(fn_engine(c), path);
}

const char *inside_repo(fn_ctx *c, const node *at, const char *what, const char *rel)
{
    if (!rel || !*rel)
        return fn_fail(c, at, "%s is empty", what), NULL;
    if (rel[0] == '/')
        return fn_fail(c, at, "%s \"%s\" must be a path relative to the package, not absolute", what, shown(c->a, rel)),
               NULL;
    char pkg[PATH_MAX], real[PATH_MAX];
    if (!realpath(step_dir(c), pkg))
        return fn_fail(c, at, "cannot resolve the package directory"), NULL;
    const char *full = arena_printf(c->a, "%s/%s", pkg, rel);
    switch (resolve_beneath(repo_root(c), full, real)) {
    case CONFINED_OUTSIDE:
        return fn_fail(c, at,
                       "%s \"%s\" leads outside the repository (by \"..\" or a symlink); only files inside the "
                       "repository may be read",
                       what, shown(c->a, rel)),
               NULL;
    case CONFINED_MISSING:
        return fn_fail(c, at, "%s \"%s\" does not exist", what, shown(c->a, rel)), NULL;
    case CONFINED_OK:
        break;
    }
    return arena_strdup(c->a, real);
}
