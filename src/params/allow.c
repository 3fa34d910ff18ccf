/* The operator's allow-list of repositories (CMP_PARAMS_ALLOWED_REPOS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params/internal.h"
#include "util/diag.h"

/* https://, http://, ssh://, git:// or scp's user@host:path: a remote, never a path of this machine. */
static bool remote(const char *u)
{
    static const char *const schemes[] = {"https://", "http://", "ssh://", "git://", NULL};
    for (const char *const *s = schemes; *s; s++)
        if (!strncasecmp(u, *s, strlen(*s)))
            return u[strlen(*s)] && u[strlen(*s)] != '/';
    const char *at = strchr(u, '@'), *colon = strchr(u, ':'), *slash = strchr(u, '/');
    return at && colon && at < colon && at != u && (!slash || colon < slash) && colon > at + 1;
}

int params_allow_parse(const char *text, params_allow *out)
{
    memset(out, 0, sizeof *out);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ",");
        const char *s = p;
        p += n + (p[n] == ',');
        while (n && (*s == ' ' || *s == '\t'))
            s++, n--;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (!n)
            continue;
        char *prefix = strndup(s, n);
        if (!prefix)
            abort();
        if (!remote(prefix)) {
            fail(NULL, 0, "CMP_PARAMS_ALLOWED_REPOS: \"%.200s\" is not a remote repository prefix (https://host/..., "
                          "ssh://..., git://... or user@host:...; never file:// or a local path)", prefix);
            free(prefix);
            params_allow_free(out);
            return -1;
        }
        out->prefixes = realloc(out->prefixes, (out->n + 1) * sizeof *out->prefixes);
        if (!out->prefixes)
            abort();
        out->prefixes[out->n++] = prefix;
    }
    if (!out->n)
        return fail(NULL, 0, "CMP_PARAMS_ALLOWED_REPOS names no prefix");
    return 0;
}

void params_allow_free(params_allow *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->prefixes[i]);
    free(a->prefixes);
    memset(a, 0, sizeof *a);
}

static bool has_ci(const char *s, const char *word)
{
    for (size_t n = strlen(word); *s; s++)
        if (!strncasecmp(s, word, n))
            return true;
    return false;
}

bool params_allowed(const params_allow *a, const char *url)
{
    if (!remote(url))
        return false;
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || *p == '\\' || *p == '?' || *p == '#')
            return false;
    if (strstr(url, "/../") || strstr(url, "/./") || has_ci(url, "%2e") || has_ci(url, "%2f"))
        return false;
    size_t n = strlen(url);
    if ((n >= 3 && !strcmp(url + n - 3, "/..")) || (n >= 2 && !strcmp(url + n - 2, "/.")))
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const char *pre = a->prefixes[i];
        size_t pn = strlen(pre);
        if (strncmp(url, pre, pn))
            continue;
        if (pre[pn - 1] == '/' || pre[pn - 1] == ':' || url[pn] == 0 || url[pn] == '/')
            return true;
    }
    return false;
}
