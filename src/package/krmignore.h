/* .krmignore: gitignore-syntax exclusions at a package root, matched against package-relative paths. */
#ifndef CMP_PACKAGE_KRMIGNORE_H
#define CMP_PACKAGE_KRMIGNORE_H
#include <stdbool.h>

#include "util/arena.h"

typedef struct krmignore krmignore;

/* Parses the text of a .krmignore file. */
krmignore *krmignore_parse(arena *a, const char *text);
/* Is the package-relative path (no leading "/") excluded? The last matching pattern decides, as in git. 1: yes,
 * 0: no, -1: path glob matching went over its step budget (util/glob.h), which the caller reports. */
int krmignore_match(const krmignore *k, const char *path, bool is_dir);
#endif
