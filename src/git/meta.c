/* Argo CD's ARGOCD_APP_* values derived from the git repository that holds the package, for runs outside Argo CD. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "git/internal.h"
#include "util/diag.h"

struct tag_pick {
    git_repository *repo;
    git_oid head;
    char *name;     /* malloc'd */
    bool annotated; /* annotated tags win over lightweight ones */
};

/* A tag pointing at HEAD's commit. Preference: annotated over lightweight, then the smallest name, so the choice does
 * not depend on the order libgit2 lists them in. */
static int tag_cb(const char *refname, git_oid *oid, void *payload)
{
    struct tag_pick *t = payload;
    git_object *obj = NULL, *peeled = NULL;
    if (git_object_lookup(&obj, t->repo, oid, GIT_OBJECT_ANY) != 0)
        return 0;
    bool annotated = git_object_type(obj) == GIT_OBJECT_TAG;
    if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0 && git_oid_equal(git_object_id(peeled), &t->head)) {
        const char *name = refname + (strncmp(refname, "refs/tags/", 10) ? 0 : 10);
        if (!t->name || (annotated && !t->annotated) || (annotated == t->annotated && strcmp(name, t->name) < 0)) {
            xfree(t->name);
            t->name = xstrdup(name);
            t->annotated = annotated;
        }
    }
    git_object_free(peeled);
    git_object_free(obj);
    return 0;
}

static const char *basename_of(arena *a, const char *abs)
{
    const char *s = strrchr(abs, '/');
    return arena_strdup(a, s && s[1] ? s + 1 : abs);
}

int gitsrc_app_meta(arena *a, const gitsrc_env *env, const char *pkg_dir, gitsrc_value_check check, gitsrc_meta *out,
                    bool *found)
{
    *found = false;
    gitsrc_meta g = *out, *m = &g; /* copied back only on success */
    char abs[PATH_MAX], work[PATH_MAX];
    if (!realpath(pkg_dir, abs))
        return fail(pkg_dir, 0, "git metadata: %s", strerror(errno));
    if (gitsrc_open(pkg_dir, "git metadata (a run outside Argo CD; --no-git-metadata skips it)") < 0)
        return -1;
    git_repository *repo = NULL;
    git_reference *head = NULL;
    git_config *cfg = NULL;
    int rc = 0;
    int orc = gitsrc_open_discover(&repo, abs, env->ceiling_directories);
    if (orc == GIT_ENOTFOUND)
        goto done;
    if (orc < 0) {
        rc = fail(pkg_dir, 0, "git metadata: cannot open the repository: %s", gitsrc_last_message());
        goto done;
    }
    const char *wd = git_repository_workdir(repo);
    if (git_repository_is_bare(repo) || !wd)
        goto done;
    if (!realpath(wd, work)) {
        rc = fail(pkg_dir, 0, "git metadata: the work tree: %s", strerror(errno));
        goto done;
    }
    size_t wn = strlen(work);
    const char *rel;
    if (!strcmp(abs, work))
        rel = ".";
    else if (!strcmp(work, "/"))
        rel = abs + 1;
    else if (!strncmp(abs, work, wn) && abs[wn] == '/')
        rel = abs + wn + 1;
    else
        goto done; /* inside the .git directory, not the work tree */
    bool is_found = true;
    /* Whatever git gives is checked as Argo CD's values are: names, refs and URLs are the author's text */
    if (!m->path) {
        m->path = arena_strdup(a, rel);
        rc = check(pkg_dir, "git metadata: the package's path in the work tree (ARGOCD_APP_SOURCE_PATH)",
                              m->path);
        if (rc < 0)
            goto done;
    }
    if (!m->name) {
        m->name = basename_of(a, abs);
        rc = check(pkg_dir, "git metadata: the package directory's name (ARGOCD_APP_NAME)", m->name);
        if (rc < 0)
            goto done;
    }

    int hrc = git_repository_head(&head, repo);
    if (hrc == 0) {
        const git_oid *oid = git_reference_target(head);
        char sha[GIT_OID_HEXSZ + 1];
        git_oid_tostr(sha, sizeof sha, oid);
        if (!m->revision)
            m->revision = arena_strdup(a, sha);
        if (!m->target_revision) {
            if (git_repository_head_detached(repo) == 1) {
                struct tag_pick t = {.repo = repo, .head = *oid};
                git_tag_foreach(repo, tag_cb, &t);
                m->target_revision = arena_strdup(a, t.name ? t.name : sha);
                xfree(t.name);
            } else {
                m->target_revision = arena_strdup(a, git_reference_shorthand(head));
            }
        }
    } else if (hrc == GIT_EUNBORNBRANCH || hrc == GIT_ENOTFOUND) {
        /* No commits yet: no revision, but the branch HEAD names is still the target. */
        git_reference *sym = NULL;
        if (!m->target_revision && git_reference_lookup(&sym, repo, "HEAD") == 0 &&
            git_reference_type(sym) == GIT_REFERENCE_SYMBOLIC) {
            const char *t = git_reference_symbolic_target(sym);
            if (!strncmp(t, "refs/heads/", 11))
                t += 11;
            m->target_revision = arena_strdup(a, t);
        }
        git_reference_free(sym);
    } else {
        rc = fail(pkg_dir, 0, "git metadata: cannot read HEAD: %s", gitsrc_last_message());
        goto done;
    }

    if (m->target_revision != out->target_revision &&
        (rc = check(pkg_dir, "git metadata: the branch or tag name (ARGOCD_APP_SOURCE_TARGET_REVISION)",
                               m->target_revision)) < 0)
        goto done;

    /* remote.origin.url as configured (not through git_remote_lookup, whose config regexps leak in libgit2 1.5) */
    const char *url = NULL;
    if (!m->repo && git_repository_config_snapshot(&cfg, repo) == 0 &&
        git_config_get_string(&url, cfg, "remote.origin.url") == 0 && *url) {
        rc = check(pkg_dir, "git metadata: remote.origin.url (ARGOCD_APP_SOURCE_REPO_URL)", url);
        if (rc < 0)
            goto done;
        m->repo = gitsrc_url_strip_credentials(a, url);
    }
    *out = g;
    *found = is_found;
done:
    git_config_free(cfg);
    git_reference_free(head);
    git_repository_free(repo);
    gitsrc_close();
    return rc;
}

/* The id of path in commit's tree (the tree itself for ""); false when the path is absent. */
static int id_at(git_commit *c, const char *path, git_oid *out, bool *present)
{
    git_tree *tree = NULL;
    *present = false;
    if (git_commit_tree(&tree, c) < 0)
        return -1;
    if (!*path) {
        git_oid_cpy(out, git_tree_id(tree));
        *present = true;
        git_tree_free(tree);
        return 0;
    }
    git_tree_entry *e = NULL;
    int rc = git_tree_entry_bypath(&e, tree, path);
    if (rc == 0) {
        git_oid_cpy(out, git_tree_entry_id(e));
        *present = true;
        git_tree_entry_free(e);
    }
    git_tree_free(tree);
    return rc == 0 || rc == GIT_ENOTFOUND ? 0 : -1;
}

int gitsrc_path_revision(arena *a, const gitsrc_env *env, const char *repo_root, const char *pkg_dir, const char *start, const char **out)
{
    *out = NULL;
    char abs[PATH_MAX], work[PATH_MAX];
    if (!realpath(pkg_dir, abs))
        return 0;
    if (gitsrc_open(pkg_dir, "package-revision") < 0)
        return -1;
    git_repository *repo = NULL;
    git_commit *cur = NULL, *parent = NULL;
    int rc = 0;
    int orc;
    if (repo_root) {
        /* Only Argo CD's own .git directory (git cannot commit a path named .git, so the author cannot plant one).
         * Opened at the root itself, libgit2 took committed HEAD, objects/ and refs/ for a bare repository with
         * the author's config: core.worktree, include.path reading any file of the sidecar (whether the stamp came
         * out told whether it existed), alternates into other checkouts. A .git file or symlink is not followed. */
        char gitdir[PATH_MAX];
        struct stat st;
        orc = -1;
        if ((size_t)snprintf(gitdir, sizeof gitdir, "%s/.git", repo_root) < sizeof gitdir && lstat(gitdir, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            orc = git_repository_open_ext(&repo, gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
            if (orc == GIT_EOWNER) {
                git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
                orc = git_repository_open_ext(&repo, gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
                git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 1);
            }
        }
    } else {
        orc = gitsrc_open_discover(&repo, abs, env->ceiling_directories);
    }
    const char *wd = orc == 0 ? git_repository_workdir(repo) : NULL;
    /* no repository (or .git left out of the copy), or history cut short: not knowable */
    if (!wd || !realpath(wd, work) || git_repository_is_shallow(repo) == 1)
        goto done;
    size_t wn = strlen(work);
    const char *rel;
    if (!strcmp(abs, work))
        rel = "";
    else if (!strcmp(work, "/"))
        rel = abs + 1;
    else if (!strncmp(abs, work, wn) && abs[wn] == '/')
        rel = abs + wn + 1;
    else
        goto done;
    git_oid oid;
    bool have = false;
    if (start && git_oid_fromstrp(&oid, start) == 0 && git_commit_lookup(&cur, repo, &oid) == 0)
        have = true;
    if (!have) {
        git_reference *head = NULL;
        if (git_repository_head(&head, repo) == 0 && git_commit_lookup(&cur, repo, git_reference_target(head)) == 0)
            have = true;
        git_reference_free(head);
    }
    if (!have)
        goto done;
    git_oid at_cur;
    bool present;
    if (id_at(cur, rel, &at_cur, &present) < 0)
        goto broken;
    for (;;) {
        if (git_commit_parentcount(cur) == 0)
            break;
        if (git_commit_parent(&parent, cur, 0) < 0)
            goto broken;
        git_oid at_parent;
        bool parent_present;
        if (id_at(parent, rel, &at_parent, &parent_present) < 0)
            goto broken;
        if (parent_present != present || (present && !git_oid_equal(&at_parent, &at_cur)))
            break;
        git_commit_free(cur);
        cur = parent;
        parent = NULL;
    }
    char sha[GIT_OID_HEXSZ + 1];
    git_oid_tostr(sha, sizeof sha, git_commit_id(cur));
    *out = arena_strdup(a, sha);
    goto done;
broken:
    rc = fail(pkg_dir, 0, "package-revision: cannot read the git history: %s", gitsrc_last_message());
done:
    git_commit_free(parent);
    git_commit_free(cur);
    git_repository_free(repo);
    gitsrc_close();
    return rc;
}
