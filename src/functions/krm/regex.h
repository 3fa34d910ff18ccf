/* pcre2 for the patterns a package author writes (search-replace's by-value-regex, replacements' [k=v]): the cost
 * of every match is bounded, and a match that runs into a bound is an error, never a quiet "no match". */
#ifndef CMP_FUNCTIONS_REGEX_H
#define CMP_FUNCTIONS_REGEX_H
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "util/arena.h"
#include "util/limits.h"

/* pcre2_compile and pcre2_match_data_create_from_pattern with their memory counted against the memory budget (as
 * every match's backtracking frames are): the package's patterns and matches allocate through util/arena.h. */
pcre2_code *regex_compile(const char *pattern, int *errcode, PCRE2_SIZE *erroffset);
pcre2_match_data *regex_match_data(const pcre2_code *re);
/* Searches s (unanchored) with the match and depth limits applied (L's max_regex_steps: the operator's, NULL the
 * default). > 0: a match, md holding it (pcre2's count of the groups set, as pcre2_match returns it); 0: no match;
 * < 0: the pcre2 error (a limit hit), which regex_failure explains. md may be NULL when the groups are not needed. */
int regex_search(const limits *L, const pcre2_code *re, pcre2_match_data *md, const char *s, size_t n);
/* "hit the regex match limit (1000000 steps; raise it with CMP_MAX_REGEX_STEPS)" and the like, for an rc < 0 of a
 * search under the same L. */
const char *regex_failure(const limits *L, arena *a, int rc);
#endif
