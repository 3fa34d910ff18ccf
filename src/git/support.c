/* libgit2 set-up, URL hygiene, and small helpers shared by the git code. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git/internal.h"
#include "util/url.h"

const char *gitsrc_last_message(void)
{
    const git_error *e = git_error_last();
    return e && e->message && *e->message ? e->message : "unknown libgit2 error";
}

int gitsrc_mkdirs(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        errno = ENOTDIR;
        return -1;
    }
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            xfree(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
    xfree(p);
    return rc;
}

bool gitsrc_is_repository(const char *path)
{
    git_repository *r = NULL;
    int rc = git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
    if (rc == GIT_EOWNER) {
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
        rc = git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 1);
    }
    git_repository_free(r);
    return rc == 0;
}

int gitsrc_open_discover(git_repository **out, const char *path, const char *ceiling)
{
    if (ceiling && !*ceiling)
        ceiling = NULL;
    int rc = git_repository_open_ext(out, path, 0, ceiling);
    if (rc == GIT_EOWNER) {
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
        rc = git_repository_open_ext(out, path, 0, ceiling);
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 1);
    }
    return rc;
}

size_t gitsrc_url_authority(const char *s)
{
    const char *p = strstr(s, "://");
    if (!p)
        return 0;
    for (const char *q = s; q < p; q++)
        if (!(('a' <= *q && *q <= 'z') || ('A' <= *q && *q <= 'Z') || ('0' <= *q && *q <= '9') || *q == '+' ||
              *q == '-' || *q == '.'))
            return 0;
    return (size_t)(p - s) + 3;
}

char *gitsrc_url_strip_credentials(arena *a, const char *url)
{
    return url_strip_credentials(a, url);
}

const char *gitsrc_revision_short(arena *a, const char *revision, size_t n)
{
    if (!revision)
        return NULL;
    return arena_strndup(a, revision, strnlen(revision, n));
}

static void env_line(buf *b, const char *name, const char *v)
{
    if (!v)
        return;
    buf_printf(b, "%s='", name);
    for (const char *p = v; *p; p++) {
        if (*p == '\'')
            buf_puts(b, "'\\''");
        else
            buf_putc(b, *p);
    }
    buf_puts(b, "'\n");
}

void gitsrc_meta_env(buf *b, const gitsrc_meta *m)
{
    char s7[8] = {0}, s8[9] = {0};
    if (m->revision) {
        memcpy(s7, m->revision, strnlen(m->revision, 7));
        memcpy(s8, m->revision, strnlen(m->revision, 8));
    }
    env_line(b, "ARGOCD_APP_NAME", m->name);
    env_line(b, "ARGOCD_APP_NAMESPACE", m->namespace);
    env_line(b, "ARGOCD_APP_PROJECT_NAME", m->project);
    env_line(b, "ARGOCD_APP_REVISION", m->revision);
    env_line(b, "ARGOCD_APP_REVISION_SHORT", m->revision ? s7 : NULL);
    env_line(b, "ARGOCD_APP_REVISION_SHORT_8", m->revision ? s8 : NULL);
    env_line(b, "ARGOCD_APP_SOURCE_REPO_URL", m->repo);
    env_line(b, "ARGOCD_APP_SOURCE_PATH", m->path);
    env_line(b, "ARGOCD_APP_SOURCE_TARGET_REVISION", m->target_revision);
}
