/* A tag of the checkout's own git metadata, for a Flux GitRepository whose ref is a tag: Argo CD resolved the
 * Application's target revision, a branch name perhaps, while Flux would fetch the tag, which may name another
 * commit. Only the tag's commit in the checkout can show they are the same. */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "git/internal.h"
#include "util/diag.h"

int gitsrc_tag_commit(arena *a, const char *repo_root, const char *file, const char *tag, const char **commit)
{
    *commit = NULL;
    /* only the .git directory at the root, opened without searching, as gitsrc_path_revision opens it: git cannot
     * commit a path named .git, so the author cannot plant one; a .git file or symlink is not followed */
    char gitdir[PATH_MAX];
    struct stat st;
    if ((size_t)snprintf(gitdir, sizeof gitdir, "%s/.git", repo_root) >= sizeof gitdir || lstat(gitdir, &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
        return GITSRC_TAG_NO_METADATA;
    }
    if (gitsrc_open(file, "a GitRepository's tag") < 0)
        return -1;
    git_repository *repo = NULL;
    int orc = git_repository_open_ext(&repo, gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
    if (orc == GIT_EOWNER) {
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
        orc = git_repository_open_ext(&repo, gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 1);
    }
    git_reference *ref = NULL;
    git_object *obj = NULL;
    int status = GITSRC_TAG_FOUND;
    if (orc != 0) {
        status = GITSRC_TAG_UNREADABLE;
    } else if (git_reference_lookup(&ref, repo, arena_printf(a, "refs/tags/%s", tag)) != 0) {
        status = GITSRC_TAG_ABSENT;
    } else if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) != 0) {
        status = GITSRC_TAG_NOT_A_COMMIT;
    } else {
        char hex[65]; /* a SHA-1 or SHA-256 object id in hex */
        git_oid_tostr(hex, sizeof hex, git_object_id(obj));
        *commit = arena_strdup(a, hex);
    }
    git_object_free(obj);
    git_reference_free(ref);
    git_repository_free(repo);
    gitsrc_close();
    return status;
}
