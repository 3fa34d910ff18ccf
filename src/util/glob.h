/* Path globs with "**" (doublestar): the matcher behind .krmignore and search-replace's by-file-path. */
#ifndef CMP_UTIL_GLOB_H
#define CMP_UTIL_GLOB_H
#include <stdbool.h>

#include "util/limits.h"

/* '*' and '?' stay within one path segment, "**" spans segments, [abc] [a-z] [!x] classes, '\' escapes.
 * 1: a match; 0: none; -1: the matches of this process went over L's max_glob_steps (the operator's limit, NULL:
 * the default; the pattern is the package author's: the caller fails, naming the pattern and CMP_MAX_GLOB_STEPS). */
int glob_match(const limits *L, const char *pattern, const char *path);
/* Go's path/filepath.Match, as kpt's .krmignore matches (package/krmignore.c): '*' any run of bytes but '/', '?'
 * one rune but '/', [a-z] [^a] classes of runes (which may match '/'), '\' escapes; no "**" (two stars are one);
 * a malformed pattern ("[", "a\\" at the end, "[]", "[a-]") matches nothing. Each piece after a star is taken where
 * it first fits, as Go does (so "*[/x]*y" does not match "x/y"). Shares glob_match's step budget: 1, 0 or -1. */
int glob_match_go(const limits *L, const char *pattern, const char *name);
#endif
