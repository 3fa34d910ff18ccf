/* A GitRepository source (spec §3.2): rendered only when it is this Application's own repository at the revision
 * Argo CD checked out, so the chart is read from the checkout and nothing is fetched. What decides it: the URL as
 * Argo CD compares repository URLs (util/git NormalizeGitURL), the ref as something Argo CD's own variables prove
 * resolves to the checked-out commit, and the files: what source-controller's artifact of the repository would
 * leave out (its .sourceignore rules) must not be read by helm either. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <strings.h>
#include <string.h>
#include <sys/stat.h>

#include "flux/internal.h"
#include "functions/tools/confine.h"
#include "util/diag.h"
#include "util/path.h"
#include "util/url.h"

/* Argo CD's NormalizeGitURL: lowercased and trimmed; an scp-like "user@host:path" as "user@host/path" (what it
 * gets from "ssh://user@host/path" too); ".git" trimmed from the end. Credentials are removed first (Argo CD sends
 * its repoURL without them here: settings/host.c). NULL for what url.Parse would re-encode (a '%', a byte outside
 * printable ASCII), which then matches nothing. */
static const char *normalize_git_url(arena *a, const char *url)
{
    char *s = url_strip_credentials(a, url);
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || s[i] == '%')
            return NULL;
        if (s[i] >= 'A' && s[i] <= 'Z')
            s[i] = (char)(s[i] - 'A' + 'a');
    }
    /* IsSSHURL: ^(ssh://)?([^/:]*?)@[^@]+$ */
    const char *body = strncmp(s, "ssh://", 6) ? s : s + 6;
    const char *at = strchr(body, '@');
    bool ssh = at && strcspn(body, "/:") >= (size_t)(at - body) && !strchr(at + 1, '@') && at[1];
    if (ssh && body == s) {
        char *colon = strchr(s, ':');
        if (colon)
            *colon = '/';
    }
    n = strlen(body);
    if (n >= 4 && !strcmp(body + n - 4, ".git"))
        return arena_strndup(a, body, n - 4);
    return ssh || body != s ? arena_strdup(a, body) : s;
}

bool flux_git_same_url(arena *a, const char *x, const char *y)
{
    const char *nx = x ? normalize_git_url(a, x) : NULL, *ny = y ? normalize_git_url(a, y) : NULL;
    return nx && ny && *nx && *ny && !strcmp(nx, ny);
}

static bool hex_sha(const char *s)
{
    size_t n = strlen(s);
    return (n == 40 || n == 64) && strspn(s, "0123456789abcdefABCDEF") == n;
}

const char *flux_git_ref_tag(const flux_git_ref *ref)
{
    if ((ref->commit && *ref->commit) || (ref->semver && *ref->semver))
        return NULL;
    if (ref->name && *ref->name)
        return !strncmp(ref->name, "refs/tags/", 10) && ref->name[10] ? ref->name + 10 : NULL;
    return ref->tag && *ref->tag ? ref->tag : NULL;
}

/* Why the branch name s is not one Argo CD and Flux resolve alike, or NULL. "HEAD": Argo CD resolves the target
 * revision HEAD to the remote's default branch, while Flux fetches refs/heads/HEAD, a branch anyone who can push
 * may create. Anything else git check-ref-format would refuse as a branch: what git, Argo CD and Flux do with it
 * differs (or one of them refuses it), so it is never matched against the target revision. */
static const char *branch_name_problem(arena *a, const char *s)
{
    if (!strcmp(s, "HEAD"))
        return "Argo CD resolves HEAD to the remote's default branch, Flux fetches refs/heads/HEAD, a branch anyone "
               "who can push may create";
    const char *why = NULL;
    size_t n = strlen(s);
    if (!n)
        why = "it is empty";
    else if (s[0] == '-' || s[0] == '/')
        why = arena_printf(a, "it begins with \"%c\"", s[0]);
    else if (s[n - 1] == '/' || s[n - 1] == '.')
        why = arena_printf(a, "it ends with \"%c\"", s[n - 1]);
    else if (!strcmp(s, "@"))
        why = "it is \"@\"";
    else if (strstr(s, ".."))
        why = "it holds \"..\"";
    else if (strstr(s, "@{"))
        why = "it holds \"@{\"";
    else if (strstr(s, "//"))
        why = "it holds an empty component (\"//\")";
    for (const char *p = s; !why && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == ' ')
            why = "it holds a space or a control character";
        else if (strchr("~^:?*[\\", *p))
            why = arena_printf(a, "it holds \"%c\"", *p);
    for (const char *p = s; !why && *p;) {
        size_t k = strcspn(p, "/");
        if (p[0] == '.')
            why = "a component begins with \".\"";
        else if (k >= 5 && !strncmp(p + k - 5, ".lock", 5))
            why = "a component ends with \".lock\"";
        p += k + (p[k] == '/');
    }
    return why ? arena_printf(a, "(git check-ref-format): %s", why) : NULL;
}

const char *flux_git_ref_problem(arena *a, const flux_git_ref *ref, const char *revision, const char *target)
{
    if (!revision || !*revision)
        return "the Application's revision is unknown (ARGOCD_APP_REVISION unset)";
    if (!hex_sha(revision))
        return "the Application's revision (ARGOCD_APP_REVISION) is not a commit SHA";
    /* source-controller's precedence: commit, name, semver, tag, branch (default master) */
    if (ref->commit && *ref->commit) {
        if (!hex_sha(ref->commit))
            return "spec.ref.commit must be a full commit SHA";
        if (strcasecmp(ref->commit, revision))
            return arena_printf(a, "spec.ref.commit %s is not the Application's revision %s", ref->commit, revision);
        return NULL;
    }
    if (ref->semver && *ref->semver)
        return "spec.ref.semver picks among the repository's tags, which the checkout Argo CD sends cannot show";
    const char *which = ref->name && *ref->name ? "name" : ref->tag && *ref->tag ? "tag" : "branch";
    /* a tag: source-controller fetches it, whatever branch Argo CD resolved the target revision from (a tag and a
     * branch may share a name), so only the tag's own commit in the checkout's git metadata can prove it */
    const char *tag = flux_git_ref_tag(ref);
    if (tag) {
        if (!ref->tag_commit)
            return arena_printf(a, "spec.ref.%s %s is a tag: %s", which,
                                shown(a, ref->name && *ref->name ? ref->name : tag),
                                ref->tag_why ? ref->tag_why : "its commit is unknown");
        if (strcasecmp(ref->tag_commit, revision))
            return arena_printf(a, "spec.ref.%s %s is a tag of commit %s, not the Application's revision %s", which,
                                shown(a, ref->name && *ref->name ? ref->name : tag), ref->tag_commit, revision);
        return NULL;
    }
    /* a branch (or another name) is compared with the target revision, which Argo CD resolved to the revision it
     * checked out: the checkout's metadata need not hold the branch (Argo CD may fetch only the commit) */
    const char *want = ref->name && *ref->name ? ref->name : ref->branch && *ref->branch ? ref->branch : "master";
    bool by_name = !strcmp(which, "name");
    /* the branch source-controller fetches: refs/heads/<branch> (a ref.name is that full reference) */
    const char *branch = by_name && !strncmp(want, "refs/heads/", 11) ? want + 11 : want;
    const char *bad = branch_name_problem(a, branch);
    if (!bad && !strncmp(branch, "refs/", 5))
        bad = "it begins with \"refs/\": Flux would fetch refs/heads/refs/..., a branch of its own that anyone who "
              "can push may create";
    if (!bad && by_name && branch == want)
        bad = "a ref.name is a full reference, refs/heads/<branch> or refs/tags/<tag>";
    if (bad)
        return arena_printf(a, "spec.ref.%s %s is not a plain branch name%s%s", which, shown(a, want),
                            *bad == '(' ? " " : ": ", bad);
    if (!target || !*target)
        return arena_printf(a, "spec.ref.%s %s cannot be matched: the Application's target revision is unknown "
                               "(ARGOCD_APP_SOURCE_TARGET_REVISION unset)",
                            which, shown(a, want));
    /* the target as the branch Argo CD resolved: refs/heads/<branch> is that branch; another full reference
     * (refs/tags/..., refs/pull/...) is no branch at all */
    const char *target_branch = !strncmp(target, "refs/heads/", 11) ? target + 11 : target;
    if (!strncmp(target_branch, "refs/", 5) || strcmp(branch, target_branch))
        return arena_printf(a, "spec.ref.%s %s%s is not the Application's target revision %s", which, shown(a, want),
                            ref->branch || by_name ? "" : " (the default when spec.ref is unset)", shown(a, target));
    return NULL;
}

/* ---- what source-controller's artifact leaves out ---- */

/* fluxcd/pkg sourceignore's default patterns (ExcludeVCS, ExcludeExt, ExcludeCI, ExcludeExtra), which apply when
 * the repository has no .sourceignore pattern and spec.ignore is unset: no slash in any (but a trailing one: a
 * directory), so each matches a name at any depth. */
static bool default_excluded(const char *name, bool dir)
{
    static const char *const any[] = {".gitignore", ".gitmodules", ".gitattributes", ".travis.yml", ".gitlab-ci.yml",
                                      "appveyor.yml", ".drone.yml", "cloudbuild.yaml", "codeship-services.yml",
                                      "codeship-steps.yml", ".goreleaser.yml", ".sops.yaml", ".flux.yaml", NULL};
    static const char *const dirs[] = {".git", ".github", ".circleci", NULL};
    static const char *const ext[] = {".jpg", ".jpeg", ".gif", ".png", ".wmv", ".flv", ".tar.gz", ".zip", NULL};
    /* ".git/" matches a directory, but the artifact holds no .git of any kind (a worktree's or a submodule's .git
     * file included): source-controller archives a clone, never Argo CD's checkout */
    if (!strcmp(name, ".git"))
        return true;
    for (int i = 0; any[i]; i++)
        if (!strcmp(name, any[i]))
            return true;
    for (int i = 0; dir && dirs[i]; i++)
        if (!strcmp(name, dirs[i]))
            return true;
    size_t n = strlen(name);
    for (int i = 0; ext[i]; i++) {
        size_t e = strlen(ext[i]);
        if (n >= e && !strcmp(name + n - e, ext[i]))
            return true;
    }
    return false;
}

/* Does the .sourceignore file at path hold a pattern (a line that is neither blank nor a comment)? One that cannot
 * be read is taken to hold one: refused, never read as empty. */
static bool has_pattern(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return true;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        for (const char *p = line; *p && !found; p++)
            found = !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f');
    }
    fclose(f);
    return found;
}

#define MAX_DEPTH 64

/* The first .sourceignore with a pattern (or that is not a regular file: a symlink, which Flux follows) under dir
 * (rel its path from the root), not following symlinks and not entering .git, as LoadIgnorePatterns finds them;
 * NULL when there is none (a directory deeper than MAX_DEPTH is
 * returned as if it held one). */
static const char *find_sourceignore(arena *a, const char *dir, const char *rel, int depth)
{
    if (depth > MAX_DEPTH)
        return rel; /* not looked at: refused, as one that holds a pattern would be */
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    const char *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        const char *path = arena_printf(a, "%s/%s", dir, e->d_name);
        const char *r = *rel ? arena_printf(a, "%s/%s", rel, e->d_name) : arena_strdup(a, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        /* any .sourceignore but a regular file without a pattern: Flux's ReadIgnoreFile follows a symlink (to a
         * file whose patterns we would not see), and what is not a file is not one we can read as it would */
        if (!strcmp(e->d_name, ".sourceignore")) {
            if (!S_ISREG(st.st_mode) || has_pattern(path))
                found = r;
        } else if (S_ISDIR(st.st_mode) && strcmp(e->d_name, ".git")) {
            found = find_sourceignore(a, path, r, depth + 1);
        }
    }
    closedir(d);
    return found;
}

/* Git submodules: source-controller's artifact holds no submodule content with spec.recurseSubmodules false (the
 * default), and with it true the submodule's commit as the parent pins it, which this step does not check; Argo CD
 * checks submodules out, leaving a .git file in each. So a directory below the repository's root that holds a .git
 * entry of any kind (file, directory, symlink) is never read: refused whatever recurseSubmodules says. */
#define SUBMODULE_WHY                                                                                                  \
    "submodule content is not rendered from a GitRepository (source-controller's artifact holds none unless "     \
    "spec.recurseSubmodules, and then at a commit this step does not check)"

static bool holds_git(arena *a, const char *root, const char *rel_dir)
{
    struct stat st;
    return lstat(arena_printf(a, "%s/%s/.git", root, rel_dir), &st) == 0;
}

/* The first directory on clean's way (a path from the root, the root itself not counted: its own .git is the
 * repository's) that holds a .git entry, or NULL. */
static const char *submodule_on_path(arena *a, const char *root, const char *clean)
{
    for (const char *p = clean; *p;) {
        size_t n = strcspn(p, "/");
        const char *upto = arena_strndup(a, clean, (size_t)(p - clean) + n);
        if (strcmp(upto, ".") && holds_git(a, root, upto))
            return upto;
        p += n + (p[n] == '/');
    }
    return NULL;
}

/* The first file or directory under dir (rel its path from the root) the default patterns leave out; *submodule
 * set when it is a directory holding a .git entry (then returned as that directory). */
static const char *find_excluded(arena *a, const char *dir, const char *rel, int depth, bool *submodule)
{
    if (depth > MAX_DEPTH)
        return rel; /* not looked at: refused */
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    const char *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        const char *path = arena_printf(a, "%s/%s", dir, e->d_name);
        const char *r = arena_printf(a, "%s/%s", rel, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        bool is_dir = S_ISDIR(st.st_mode);
        /* the root's own .git (a chart at the root) is left out by the default rules, not a submodule */
        if (!strcmp(e->d_name, ".git") && !(depth == 0 && (!*rel || !strcmp(rel, ".")))) {
            *submodule = true;
            found = rel;
        } else if (default_excluded(e->d_name, is_dir) || S_ISLNK(st.st_mode))
            found = r;
        else if (is_dir)
            found = find_excluded(a, path, r, depth + 1, submodule);
    }
    closedir(d);
    return found;
}

const char *flux_git_artifact_problem(arena *a, const char *root, const char *rel_dir, bool ignore_set)
{
    if (ignore_set)
        return "spec.ignore shapes source-controller's artifact with gitignore rules this step does not reproduce";
    const char *si = find_sourceignore(a, root, "", 0);
    if (si)
        return arena_printf(a, "the repository's %s shapes source-controller's artifact with gitignore rules this "
                               "step does not reproduce",
                            shown(a, si));
    return flux_git_dir_problem(a, root, rel_dir);
}

const char *flux_git_dir_problem(arena *a, const char *root, const char *rel_dir)
{
    /* the chart's own path first: a chart under .github/, or reached through a symlink, is not in the artifact (its
     * archive holds regular files and directories only) */
    const char *p = rel_dir;
    while (*p) {
        size_t n = strcspn(p, "/");
        const char *name = arena_strndup(a, p, n), *upto = arena_strndup(a, rel_dir, (size_t)(p - rel_dir) + n);
        struct stat st;
        if (default_excluded(name, true) ||
            (lstat(arena_printf(a, "%s/%s", root, upto), &st) == 0 && !S_ISDIR(st.st_mode)))
            return arena_printf(a, "source-controller's artifact leaves out %s (%s), so Flux would not find the chart",
                                shown(a, upto),
                                default_excluded(name, true) ? "its default ignore rules" : "a symlink");
        p += n + (p[n] == '/');
    }
    bool submodule = false;
    const char *x = submodule_on_path(a, root, rel_dir);
    if (!x)
        x = find_excluded(a, arena_printf(a, "%s/%s", root, rel_dir), rel_dir, 0, &submodule);
    else
        submodule = true;
    if (x && submodule)
        return arena_printf(a, "the git submodule %s (its .git) would be read here: " SUBMODULE_WHY, shown(a, x));
    if (x)
        return arena_printf(a, "source-controller's artifact leaves out %s (its default ignore rules, or a symlink), "
                               "which helm would read here: refused rather than rendered differently",
                            shown(a, x));
    return NULL;
}

const char *flux_git_left_out(arena *a, const char *root, const char *clean)
{
    const char *sub = submodule_on_path(a, root, clean);
    if (sub)
        return arena_printf(a, "is in the git submodule %s (its .git): " SUBMODULE_WHY, shown(a, sub));
    for (const char *p = clean; *p;) {
        size_t n = strcspn(p, "/");
        const char *name = arena_strndup(a, p, n), *upto = arena_strndup(a, clean, (size_t)(p - clean) + n);
        struct stat st;
        bool dir = p[n] == '/' || (lstat(arena_printf(a, "%s/%s", root, upto), &st) == 0 && S_ISDIR(st.st_mode));
        if (default_excluded(name, dir))
            return arena_printf(a, "is left out of source-controller's artifact (%s: its default ignore rules), so "
                                   "Flux would not read it: refused rather than rendered differently",
                                shown(a, upto));
        p += n + (p[n] == '/');
    }
    return NULL;
}

const char *flux_git_path(arena *a, const char *root, const char *rel, const char **real, const char **clean,
                          bool *missing)
{
    *real = *clean = NULL;
    *missing = false;
    if (!rel || !*rel)
        return "is empty";
    if (rel[0] == '/')
        return "must be a path relative to the repository's root, not absolute";
    const char *cl = clean_path(a, rel);
    if (!strcmp(cl, "..") || !strncmp(cl, "../", 3))
        return "leads outside the repository (by \"..\"); only files inside it may be read";
    /* source-controller's artifact holds regular files and directories only: a symlink on the way is not there */
    char *walk = arena_strdup(a, cl);
    for (char *p = walk; *p;) {
        size_t n = strcspn(p, "/");
        char save = p[n];
        p[n] = 0;
        struct stat st;
        int rc = lstat(arena_printf(a, "%s/%s", root, walk), &st);
        p[n] = save;
        if (rc == 0 && S_ISLNK(st.st_mode))
            return arena_printf(a, "is reached through a symlink (%s), which source-controller's artifact leaves "
                                   "out; symlinks are not followed",
                                shown(a, arena_strndup(a, walk, (size_t)(p - walk) + n)));
        if (rc != 0)
            break; /* missing: resolve_beneath says so */
        p += n + (save == '/');
    }
    char out[PATH_MAX];
    switch (resolve_beneath(root, arena_printf(a, "%s/%s", root, cl), out)) {
    case CONFINED_OUTSIDE:
        return "leads outside the repository (by \"..\" or a symlink); only files inside it may be read";
    case CONFINED_MISSING:
        *missing = true;
        return "does not exist in the repository";
    case CONFINED_OK:
        break;
    }
    *real = arena_strdup(a, out);
    *clean = cl;
    return NULL;
}

const char *flux_repo_root(struct fn_ctx *c)
{
    return repo_root(c);
}
