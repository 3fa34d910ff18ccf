/* The `pkg get` source argument: which repository, which directory in it, which ref. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "git/internal.h"
#include "util/buf.h"
#include "util/diag.h"

/* "a//b/./c/" -> "/a/b/c"; "" -> "/". NULL when a ".." would leave the repository. */
static const char *clean_directory(arena *a, const char *dir)
{
    buf b = {0};
    const char *p = dir;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && !strncmp(p, "..", 2)) {
            buf_free(&b);
            return NULL;
        }
        if (n && !(n == 1 && *p == '.')) {
            buf_putc(&b, '/');
            buf_put(&b, p, n);
        }
        p += n;
        if (*p == '/')
            p++;
    }
    const char *r = arena_strdup(a, b.len ? buf_cstr(&b) : "/");
    buf_free(&b);
    return r;
}

static char *absolute(arena *a, const char *path)
{
    if (path[0] == '/')
        return arena_strdup(a, path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    return arena_printf(a, "%s/%s", cwd, path);
}

static char *real(arena *a, const char *path)
{
    char r[PATH_MAX];
    return realpath(path, r) ? arena_strdup(a, r) : NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* A local repository named in kpt's ".git" form: X.git as written, or X when only that exists. */
static int local_git_form(arena *a, const char *display, const char *path, pkg_source *o, bool file_url)
{
    char *abs = absolute(a, path);
    if (!abs)
        return fail(NULL, 0, "%s: %s", display, strerror(errno));
    char *without = arena_strndup(a, abs, strlen(abs) - 4);
    const char *pick = gitsrc_is_repository(abs) ? abs : gitsrc_is_repository(without) ? without : NULL;
    char *r = pick ? real(a, pick) : NULL;
    if (!r)
        return fail(NULL, 0, "%s: not a git repository", display);
    o->url = o->key = r;
    const char *rec = pick == abs && ends_with(r, ".git") ? arena_strndup(a, r, strlen(r) - 4) : r;
    o->repo = file_url ? arena_printf(a, "file://%s", rec) : rec;
    return 0;
}

/* A local path: the longest prefix that is a repository is REPO, the rest is DIR. */
static int local_discover(arena *a, const char *display, const char *path, pkg_source *o, const char **dir,
                          bool file_url)
{
    char *abs = absolute(a, path);
    if (!abs)
        return fail(NULL, 0, "%s: %s", display, strerror(errno));
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        abs[--n] = 0;
    char *p = arena_strdup(a, abs);
    for (;;) {
        if (gitsrc_is_repository(p))
            break;
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            if (p[1] && (p[1] = 0, gitsrc_is_repository(p)))
                break;
            return fail(NULL, 0, "%s: not a git repository", display);
        }
        *slash = 0;
    }
    size_t pn = strlen(p);
    *dir = pn == 1 ? abs + 1 : abs[pn] ? abs + pn + 1 : "";
    char *r = real(a, p);
    if (!r)
        return fail(NULL, 0, "%s: %s", display, strerror(errno));
    o->url = o->key = r;
    o->repo = file_url ? arena_printf(a, "file://%s", r) : r;
    return 0;
}

int pkg_source_parse(arena *a, const char *arg, pkg_source *o)
{
    memset(o, 0, sizeof *o);
    if (!*arg)
        return fail(NULL, 0, "empty repository argument");
    size_t auth = gitsrc_url_authority(arg), body_start;
    bool url = auth > 0, scp = false;
    if (url) {
        body_start = auth + strcspn(arg + auth, "/");
    } else {
        const char *colon = strchr(arg, ':'), *slash = strchr(arg, '/');
        scp = colon && colon != arg && (!slash || colon < slash);
        body_start = scp ? (size_t)(colon - arg) + 1 : 0;
    }
    bool file_url = url && !strncasecmp(arg, "file://", 7);
    o->local = !url && !scp ? true : file_url;

    /* kpt's form: the first ".git" followed by "/", "@" or the end closes REPO. */
    const char *g = NULL;
    for (const char *p = arg + body_start; (p = strstr(p, ".git")); p++)
        if (p[4] == 0 || p[4] == '/' || p[4] == '@') {
            g = p;
            break;
        }
    const char *repo_part, *dir = "", *ref = NULL;
    if (g) {
        repo_part = arena_strndup(a, arg, (size_t)(g + 4 - arg));
        const char *rest = g + 4;
        if (*rest == '/')
            rest++;
        const char *at = strchr(rest, '@');
        if (at) {
            dir = arena_strndup(a, rest, (size_t)(at - rest));
            ref = at + 1;
        } else {
            dir = rest;
        }
    } else {
        const char *at = strrchr(arg + body_start, '@');
        if (at && o->local && access(file_url ? arg + 7 : arg, F_OK) == 0)
            at = NULL; /* an existing path with '@' in a name, not PATH@REF */
        repo_part = at ? arena_strndup(a, arg, (size_t)(at - arg)) : arg;
        ref = at ? at + 1 : NULL;
        if (url && !file_url) {
            const char *dd = strstr(repo_part + body_start, "//");
            if (dd) {
                dir = dd + 2;
                repo_part = arena_strndup(a, repo_part, (size_t)(dd - repo_part));
            }
        }
    }
    if (ref) {
        char *r = arena_strdup(a, ref);
        size_t n = strlen(r);
        while (n && r[n - 1] == '/')
            r[--n] = 0;
        if (!n)
            return fail(NULL, 0, "%s: empty ref after '@'", arg);
        o->ref = r;
    }
    if (!*repo_part)
        return fail(NULL, 0, "%s: no repository before the directory", arg);

    int rc = 0;
    if (o->local) {
        const char *path = file_url ? repo_part + 7 : repo_part;
        if (!*path)
            return fail(NULL, 0, "%s: no repository path", arg);
        if (gitsrc_open(NULL, NULL) < 0)
            return -1;
        if (g)
            rc = local_git_form(a, arg, path, o, file_url);
        else
            rc = local_discover(a, arg, path, o, &dir, file_url);
        gitsrc_close();
        if (rc < 0)
            return rc;
    } else {
        o->url = repo_part;
        o->key = gitsrc_url_strip_credentials(a, repo_part);
        const char *rec = g ? arena_strndup(a, repo_part, strlen(repo_part) - 4) : repo_part;
        o->repo = gitsrc_url_strip_credentials(a, rec);
    }
    o->directory = clean_directory(a, dir);
    if (!o->directory)
        return fail(NULL, 0, "%s: the directory must stay inside the repository (no \"..\")", arg);
    return 0;
}
