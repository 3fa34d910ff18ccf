/* Repository URLs as they may be shown or stamped: without anything that can carry a credential. */
#ifndef CMP_UTIL_URL_H
#define CMP_UTIL_URL_H
#include "util/arena.h"

/* For URLs with a scheme ("scheme://authority/path?query#fragment"):
 *   - http(s) lose the whole user-info part (a lone user name is often a token); other schemes (ssh://, git://)
 *     keep the user name and lose only a password;
 *   - every scheme loses its query and fragment: tokens travel there too (?private_token=, ?access_token=,
 *     X-Amz-Signature=...), and a query names nothing a repository URL needs to show.
 * scp-like addresses (git@host:org/repo) and local paths come back unchanged. */
char *url_strip_credentials(arena *a, const char *url);
#endif
