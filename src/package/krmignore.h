/* .krmignore: exclusions at a package root, in kpt's syntax and meaning (krmignore.c lists them: gitignore-like,
 * not git's), matched against package-relative paths. */
#ifndef CMP_PACKAGE_KRMIGNORE_H
#define CMP_PACKAGE_KRMIGNORE_H
#include <stdbool.h>

#include "util/arena.h"
#include "util/limits.h"

typedef struct krmignore krmignore;

/* Parses the text of a .krmignore file; NULL after fail(file, line, ...) on a line kpt cannot take (an empty
 * pattern, on which kpt panics, or one of 64 KiB or more, where kpt stops reading). L: the operator's limits its
 * matches count against (max-glob-steps; NULL: the default). */
krmignore *krmignore_parse(arena *a, const limits *L, const char *file, const char *text);
/* Is the package-relative path (no leading "/") excluded? A "!" pattern that matches keeps it, whatever the
 * order; otherwise any matching pattern excludes it. 1: yes, 0: no, -1: path glob matching went over its step
 * budget (util/glob.h), which the caller reports. */
int krmignore_match(const krmignore *k, const char *path, bool is_dir);
#endif
