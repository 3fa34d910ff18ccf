/* Shared between the files of src/git. */
#ifndef CMP_GIT_INTERNAL_H
#define CMP_GIT_INTERNAL_H
#include "git/libgit2.h"
#include <stdbool.h>

#include "git/git.h"

/* Where the authority ("[userinfo@]host[:port]") of "scheme://..." starts; 0 when s is not such a URL. */
size_t gitsrc_url_authority(const char *s);
/* libgit2's last error message, or a fallback. */
const char *gitsrc_last_message(void);
/* Removes a directory tree (or a file) without following symlinks; best effort. */
/* Makes path and its missing parents (mode 0700 for the ones it creates); 0 or -1 with errno. */
int gitsrc_mkdirs(const char *path);
/* A repository at exactly path (bare, or a work tree with .git), without searching upward. */
bool gitsrc_is_repository(const char *path);
/* Opens the repository that holds path, searching upward but not below ceiling (GIT_CEILING_DIRECTORIES' form;
 * NULL or empty: no limit); GIT_ENOTFOUND outside any. Retries without libgit2's
 * owner check for a repository another user owns (reading never runs programs from it). */
int gitsrc_open_discover(git_repository **out, const char *path, const char *ceiling);
#endif
