#include "settings/value_rules.h"

#include <string.h>

#include "util/diag.h"

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool hex_digit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* s[0..n): dot-separated parts of [a-z0-9-], each with a letter or digit at both ends. Kubernetes checks only this
 * and the total length, not a length per part. fold: upper case counts as lower (annotation keys). */
static bool dns_parts(const char *s, size_t n, bool fold)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = fold ? lower(s[i]) : s[i];
        bool edge = i == 0 || i == n - 1 || s[i - 1] == '.' || s[i + 1] == '.';
        if (c == '.' ? edge : !(lower_alnum(c) || (c == '-' && !edge)))
            return false;
    }
    return true;
}

const char *dns_subdomain_rule(const char *s)
{
    size_t n = strlen(s);
    if (!n)
        return "a DNS subdomain must not be empty";
    if (n > 253)
        return "a DNS subdomain is at most 253 characters";
    return dns_parts(s, n, false) ? NULL : "a DNS subdomain is dot-separated parts of lower-case letters, digits and "
                                           "'-', each starting and ending with a letter or digit";
}

/* [A-Za-z0-9] at both ends, [-A-Za-z0-9_.] inside: the name part of a key, and a label value. */
static bool name_chars(const char *s, size_t n)
{
    if (!n || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

const char *qualified_name_rule(const char *key, bool annotation)
{
    const char *slash = strchr(key, '/'), *name = slash ? slash + 1 : key;
    if (slash && strchr(name, '/'))
        return "it holds more than one '/' (a key is an optional DNS subdomain prefix and '/', then a name)";
    if (slash) {
        size_t pn = (size_t)(slash - key);
        if (!pn)
            return "the prefix before '/' is empty";
        if (pn > 253)
            return "the prefix before '/' is longer than 253 characters";
        if (!dns_parts(key, pn, annotation))
            return annotation ? "the prefix before '/' must be a DNS subdomain: dot-separated parts of letters, "
                                "digits and '-', each starting and ending with a letter or digit"
                              : "the prefix before '/' must be a DNS subdomain: dot-separated parts of lower-case "
                                "letters, digits and '-', each starting and ending with a letter or digit";
    }
    size_t n = strlen(name);
    if (!n)
        return slash ? "the name after '/' is empty" : "a key must not be empty";
    if (n > 63)
        return slash ? "the name after '/' is longer than 63 characters" : "the name is longer than 63 characters "
                                                                           "(a longer key needs a prefix and '/')";
    if (!name_chars(name, n))
        return "the name must be letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
    return NULL;
}

const char *label_value_rule(const char *value)
{
    size_t n = strlen(value);
    if (n > 63)
        return "a label value is at most 63 characters";
    if (n && !name_chars(value, n))
        return "a label value is empty, or letters, digits, '-', '_' and '.' starting and ending with a letter or "
               "digit";
    return NULL;
}

/* The distribution reference grammar (github.com/distribution/reference, regexp.go). */

/* path-component: [a-z0-9]+ joined by separators: '.', '_', '__', or one or more '-'. */
static bool path_component(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        size_t run = i;
        while (i < n && lower_alnum(s[i]))
            i++;
        if (i == run)
            return false;
        if (i == n)
            return true;
        if (s[i] == '.')
            i++;
        else if (s[i] == '_')
            i += i + 1 < n && s[i + 1] == '_' ? 2 : 1;
        else if (s[i] == '-')
            while (i < n && s[i] == '-')
                i++;
        else
            return false;
    }
}

/* remote-name: path components separated by '/'. */
static bool remote_name(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || s[i] == '/') {
            if (!path_component(s + start, i - start))
                return false;
            start = i + 1;
        }
    return true;
}

/* domain: a host name ([a-zA-Z0-9] parts with '-' inside, joined by '.') or a bracketed IPv6 address, then an
 * optional ":port". */
static bool registry_domain(const char *s, size_t n)
{
    size_t host = 0;
    if (n && s[0] == '[') {
        while (host + 1 < n && s[host + 1] != ']')
            host++;
        if (host + 1 >= n || host == 0)
            return false;
        for (size_t i = 1; i <= host; i++)
            if (!hex_digit(s[i]) && s[i] != ':')
                return false;
        host += 2; /* the brackets */
    } else {
        while (host < n && s[host] != ':')
            host++;
        if (!host)
            return false;
        for (size_t i = 0; i < host; i++) {
            bool edge = i == 0 || i == host - 1 || s[i - 1] == '.' || s[i + 1] == '.';
            if (s[i] == '.' ? edge : !(alnum(s[i]) || (s[i] == '-' && !edge)))
                return false;
        }
    }
    if (host == n)
        return true;
    if (s[host] != ':' || host + 1 == n)
        return false;
    for (size_t i = host + 1; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static const char name_rule[] = "an image name is lower-case path components of letters and digits joined by '.', "
                                "'_', '__' or '-', separated by '/', optionally after a registry host[:port]/, at "
                                "most 255 characters";
static const char tag_rule[] = "a tag is 1 to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'";
static const char digest_rule[] = "a digest is algorithm:hex with 32 hex digits or more, such as sha256: and 64 hex "
                                  "digits";

static bool image_name(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 255)
        return false;
    /* the first component is the registry when it is one and the rest is a remote name; else all is remote name */
    const char *slash = strchr(s, '/');
    if (slash && registry_domain(s, (size_t)(slash - s)) && remote_name(slash + 1, strlen(slash + 1)))
        return true;
    return remote_name(s, n);
}

static bool image_tag(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 128 || !(alnum(s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!alnum(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
            return false;
    return true;
}

/* [A-Za-z][A-Za-z0-9]* components joined by one of -_+. then ':' and 32 or more hex digits */
static bool image_digest(const char *s)
{
    size_t i = 0;
    for (;;) {
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
            return false;
        while (alnum(s[i]))
            i++;
        if (s[i] == ':')
            break;
        if (!s[i] || !strchr("-_+.", s[i]))
            return false;
        i++;
    }
    size_t hex = 0;
    for (i++; s[i]; i++, hex++)
        if (!hex_digit(s[i]))
            return false;
    return hex >= 32;
}

/* Cuts "@digest" and then ":tag" (after the last '/') off s, in place. */
static void cut_reference(char *s, char **tag, char **digest)
{
    *tag = *digest = NULL;
    char *at = strchr(s, '@');
    if (at) {
        *at = 0;
        *digest = at + 1;
    }
    char *slash = strrchr(s, '/');
    char *colon = strrchr(slash ? slash : s, ':');
    if (colon) {
        *colon = 0;
        *tag = colon + 1;
    }
}

/* "" for kustomize's "*" (keep what is there), else the part itself */
static const char *unless_kept(const char *s)
{
    return s && !strcmp(s, "*") ? "" : s ? s : "";
}

static const char *part_error(arena *a, const char *spec, const char *what, const char *part, const char *rule)
{
    return arena_printf(a, "\"%s\": %s \"%s\" is not valid (%s)", shown(a, spec), what, shown(a, part), rule);
}

const char *image_override_split(arena *a, const char *spec, image_override *out)
{
    *out = (image_override){"", "", "", ""};
    const char *eq = strchr(spec, '=');
    char *rest = arena_strdup(a, eq ? eq + 1 : spec), *tag, *digest;
    cut_reference(rest, &tag, &digest);
    if (eq && !*rest)
        return arena_printf(a, "\"%s\": the new name after '=' is empty (name:newTag or name@digest keeps the name)",
                            shown(a, spec));
    if ((tag && !*tag) || (digest && !*digest))
        return arena_printf(a, "\"%s\": the %s after '%c' is empty", shown(a, spec), tag && !*tag ? "tag" : "digest",
                            tag && !*tag ? ':' : '@');
    if (!eq && !tag && !digest)
        return arena_printf(a, "\"%s\" is not name=newName:newTag, name=newName@sha256:..., name:newTag or "
                               "name@sha256:...",
                            shown(a, spec));
    if (eq) {
        /* the name to match may carry a tag or digest itself: then only that exact image changes */
        char *name = arena_strndup(a, spec, (size_t)(eq - spec)), *ntag, *ndigest;
        out->name = arena_strdup(a, name);
        cut_reference(name, &ntag, &ndigest);
        if (!image_name(name))
            return part_error(a, spec, "the image name", name, name_rule);
        if (ntag && !image_tag(ntag))
            return part_error(a, spec, "the tag of the image name", ntag, tag_rule);
        if (ndigest && !image_digest(ndigest))
            return part_error(a, spec, "the digest of the image name", ndigest, digest_rule);
        out->new_name = unless_kept(rest);
        if (*out->new_name && !image_name(out->new_name))
            return part_error(a, spec, "the new name", rest, name_rule);
    } else {
        out->name = rest;
        if (!image_name(rest))
            return part_error(a, spec, "the image name", rest, name_rule);
    }
    out->new_tag = unless_kept(tag);
    if (*out->new_tag && !image_tag(tag))
        return part_error(a, spec, "the tag", tag, tag_rule);
    out->digest = unless_kept(digest);
    if (*out->digest && !image_digest(digest))
        return part_error(a, spec, "the digest", digest, digest_rule);
    if (!*out->new_name && !*out->new_tag && !*out->digest)
        return arena_printf(a, "\"%s\" changes nothing (give a new name, tag or digest)", shown(a, spec));
    return NULL;
}
