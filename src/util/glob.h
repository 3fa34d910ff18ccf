/* Path globs with "**" (doublestar): the matcher behind .krmignore and search-replace's by-file-path. */
#ifndef CMP_UTIL_GLOB_H
#define CMP_UTIL_GLOB_H
#include <stdbool.h>

/* '*' and '?' stay within one path segment, "**" spans segments, [abc] [a-z] [!x] classes, '\' escapes. */
bool glob_match(const char *pattern, const char *path);
#endif
