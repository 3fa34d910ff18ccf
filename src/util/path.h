/* Paths resolved and cleaned without the kernel following anything: the repository boundary's tools, used by the
 * reader (resource files), the Argo CD host (the repository root) and the functions that hand paths to helm and
 * kustomize. */
#ifndef CMP_UTIL_PATH_H
#define CMP_UTIL_PATH_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

typedef enum { CONFINED_OK, CONFINED_MISSING, CONFINED_OUTSIDE } confined;

/* Resolves the absolute path as the kernel would (symlinks, ".", ".."), one component at a time from root (a real
 * path): CONFINED_OK with the real path in out; CONFINED_OUTSIDE as soon as a step would leave root (by "..", an
 * absolute or relative symlink, or a path that does not start at root) or symlinks loop; CONFINED_MISSING when a
 * component inside root does not exist or is not a directory. */
confined resolve_beneath(const char *root, const char *path, char out[PATH_MAX]);

/* "a/./b/../c" as "a/c": Go's filepath.Clean, which is how helm joins a file:// dependency to its chart. */
char *clean_path(arena *a, const char *path);
/* Does path start with the directory root of length rl (the root "/" given as rl 0), by whole components, with no
 * look at the file system? */
bool path_under(const char *path, const char *root, size_t rl);
#endif
