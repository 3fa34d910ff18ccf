#include "util/url.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* The offset just past "scheme://", or 0 when url does not start with a scheme. */
static size_t authority_start(const char *url)
{
    const char *p = strstr(url, "://");
    if (!p || p == url)
        return 0;
    for (const char *q = url; q < p; q++)
        if (!(('a' <= *q && *q <= 'z') || ('A' <= *q && *q <= 'Z') || ('0' <= *q && *q <= '9') || *q == '+' ||
              *q == '-' || *q == '.'))
            return 0;
    return (size_t)(p - url) + 3;
}

char *url_strip_credentials(arena *a, const char *url)
{
    size_t start = authority_start(url);
    if (!start)
        return arena_strdup(a, url);
    size_t end = start + strcspn(url + start, "/?#");     /* end of the authority */
    size_t stop = end + strcspn(url + end, "?#");         /* start of the query or fragment */
    const char *at = NULL;
    for (const char *p = url + start; p < url + end; p++)
        if (*p == '@')
            at = p; /* the last '@' of the authority ends the user info */
    if (!at)
        return arena_strndup(a, url, stop);
    size_t scheme = start - 3;
    bool http = (scheme == 4 && !strncasecmp(url, "http", 4)) || (scheme == 5 && !strncasecmp(url, "https", 5));
    const char *colon = memchr(url + start, ':', (size_t)(at - (url + start)));
    const char *host = at + 1;
    if (http || colon == url + start)
        return arena_printf(a, "%.*s%.*s", (int)start, url, (int)(url + stop - host), host);
    if (!colon)
        return arena_strndup(a, url, stop);
    /* keep "user@", drop ":password" */
    return arena_printf(a, "%.*s%.*s", (int)(colon - url), url, (int)(url + stop - at), at);
}
