#include "params/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const unsigned char *p, *start, *end;
    char *err;
    size_t cap;
    bool failed;
} reader;

static void *alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        abort(); /* as the arena does: no useful recovery */
    return p;
}

static void *grow(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static json *bad_json(reader *r, const char *what)
{
    if (!r->failed)
        snprintf(r->err, r->cap, "byte %zu: %s", (size_t)(r->p - r->start) + 1, what);
    r->failed = true;
    return NULL;
}

static void skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int hex4(const unsigned char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12), o[1] = (char)(0x80 | (c >> 6 & 0x3F)), o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18), o[1] = (char)(0x80 | (c >> 12 & 0x3F)), o[2] = (char)(0x80 | (c >> 6 & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!n || (size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 2 && c < 0xC2)
        return 0;
    if (n == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)))
        return 0;
    if (n == 4 && ((c == 0xF0 && p[1] < 0x90) || c > 0xF4 || (c == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

/* A string at r->p (the opening quote), unescaped into a new NUL-terminated buffer. */
static char *string(reader *r)
{
    r->p++;
    /* the unescaped text is never longer than the escaped one */
    const unsigned char *q = r->p;
    while (q < r->end && *q != '"')
        q += *q == '\\' && q + 1 < r->end ? 2 : 1;
    if (q >= r->end)
        return (char *)bad_json(r, "unterminated string");
    char *o = alloc((size_t)(q - r->p) + 1);
    size_t n = 0;
    while (*r->p != '"') {
        unsigned c = *r->p;
        if (c < 0x20) {
            free(o);
            return (char *)bad_json(r, "control character in a string");
        }
        if (c != '\\') {
            size_t l = utf8_len(r->p, r->end);
            if (!l) {
                free(o);
                return (char *)bad_json(r, "invalid UTF-8 in a string");
            }
            memcpy(o + n, r->p, l);
            n += l;
            r->p += l;
            continue;
        }
        r->p++;
        c = *r->p;
        const char *simple = strchr("\"\\/bfnrt", (int)c);
        if (c && simple) {
            o[n++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            r->p++;
            continue;
        }
        if (c != 'u' || r->end - r->p < 5 || hex4(r->p + 1) < 0) {
            free(o);
            return (char *)bad_json(r, "invalid escape in a string");
        }
        uint32_t u = (uint32_t)hex4(r->p + 1);
        r->p += 5;
        if (u >= 0xD800 && u < 0xDC00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u' &&
            hex4(r->p + 2) >= 0xDC00 && hex4(r->p + 2) < 0xE000) {
            u = 0x10000 + ((u - 0xD800) << 10) + ((uint32_t)hex4(r->p + 2) - 0xDC00);
            r->p += 6;
        } else if (u >= 0xD800 && u < 0xE000) {
            u = 0xFFFD; /* a lone surrogate: Go's encoding/json reads U+FFFD */
        }
        if (!u) {
            free(o);
            return (char *)bad_json(r, "a string holds a NUL character (\\u0000)");
        }
        n += put_utf8(o + n, u); /* at most 4 bytes for the 6 or 12 read */
    }
    r->p++;
    o[n] = 0;
    return o;
}

static json *value(reader *r, int depth);

static json *number(reader *r)
{
    const unsigned char *s = r->p;
    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9')
        return bad_json(r, "invalid number");
    if (*r->p == '0')
        r->p++;
    else
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return bad_json(r, "invalid number");
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return bad_json(r, "invalid number");
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    }
    json *j = alloc(sizeof *j);
    j->type = JSON_NUMBER;
    j->text = alloc((size_t)(r->p - s) + 1);
    memcpy(j->text, s, (size_t)(r->p - s));
    return j;
}

static bool literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
        return false;
    r->p += n;
    return true;
}

static json *container(reader *r, int depth, bool object)
{
    json *j = alloc(sizeof *j);
    j->type = object ? JSON_OBJECT : JSON_ARRAY;
    size_t cap = 0;
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == (object ? '}' : ']')) {
        r->p++;
        return j;
    }
    for (;;) {
        skip_ws(r);
        char *key = NULL;
        if (object) {
            if (r->p >= r->end || *r->p != '"') {
                json_free(j);
                return bad_json(r, "expected a member name (a string)");
            }
            if (!(key = string(r))) {
                json_free(j);
                return NULL;
            }
            /* the duplicate check below compares each name with those before it: capped, a request has a handful
             * (131k names in 1 MiB were 35 s of CPU) */
            if (j->n >= JSON_MAX_MEMBERS) {
                free(key);
                json_free(j);
                return bad_json(r, "more than 256 members in one object");
            }
            for (size_t i = 0; i < j->n; i++)
                if (!strcmp(j->keys[i], key)) {
                    free(key);
                    json_free(j);
                    return bad_json(r, "a member name given twice in one object");
                }
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') {
                free(key);
                json_free(j);
                return bad_json(r, "expected ':'");
            }
            r->p++;
        }
        json *v = value(r, depth + 1);
        if (!v) {
            free(key);
            json_free(j);
            return NULL;
        }
        if (j->n == cap) {
            cap = cap ? cap * 2 : 4;
            j->items = grow(j->items, cap * sizeof *j->items);
            if (object)
                j->keys = grow(j->keys, cap * sizeof *j->keys);
        }
        if (object)
            j->keys[j->n] = key;
        j->items[j->n++] = v;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == (object ? '}' : ']')) {
            r->p++;
            return j;
        }
        json_free(j);
        return bad_json(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static json *value(reader *r, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return bad_json(r, "nested deeper than 64 levels");
    skip_ws(r);
    if (r->p >= r->end)
        return bad_json(r, "unexpected end of input");
    json *j;
    switch (*r->p) {
    case '{':
        return container(r, depth, true);
    case '[':
        return container(r, depth, false);
    case '"': {
        char *s = string(r);
        if (!s)
            return NULL;
        j = alloc(sizeof *j);
        j->type = JSON_STRING;
        j->text = s;
        return j;
    }
    case 't':
    case 'f':
    case 'n':
        if (literal(r, "true") || literal(r, "false") || literal(r, "null")) {
            j = alloc(sizeof *j);
            j->type = r->p[-1] == 'l' ? JSON_NULL : JSON_BOOL;
            j->boolean = r->p[-1] == 'e' && r->p[-4] == 't';
            return j;
        }
        return bad_json(r, "invalid literal");
    default:
        if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
            return number(r);
        return bad_json(r, "unexpected character");
    }
}

json *json_parse(const char *text, size_t len, char *err, size_t cap)
{
    reader r = {(const unsigned char *)text, (const unsigned char *)text, (const unsigned char *)text + len, err, cap, false};
    json *j = value(&r, 0);
    if (!j)
        return NULL;
    skip_ws(&r);
    if (r.p != r.end) {
        json_free(j);
        return bad_json(&r, "text after the JSON value");
    }
    return j;
}

void json_free(json *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        json_free(j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->text);
    free(j);
}

const json *json_get(const json *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return obj->items[i];
    return NULL;
}

const char *json_type_name(json_type t)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "a list", "an object"};
    return names[t];
}

int json_put_raw(char **out, size_t *len, size_t *cap, size_t max, const char *s, size_t n)
{
    if (*len + n > max)
        return -1;
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < *len + n + 1)
            c *= 2;
        *out = grow(*out, c);
        *cap = c;
    }
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = 0;
    return 0;
}

/* Go's encoding/json escaping with HTML escaping off (as the controller's encoder writes): ", \, and control
 * characters; U+2028 and U+2029 as \u2028, \u2029. */
int json_put_string(char **out, size_t *len, size_t *cap, size_t max, const char *s)
{
    if (json_put_raw(out, len, cap, max, "\"", 1) < 0)
        return -1;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        const char *piece = NULL;
        size_t n = 0;
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\', esc[1] = (char)*p;
            piece = esc, n = 2;
        } else if (*p < 0x20) {
            const char *named = *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : *p == '\t' ? "\\t" : NULL;
            if (named)
                piece = named, n = 2;
            else
                n = (size_t)snprintf(esc, sizeof esc, "\\u%04x", *p), piece = esc;
        } else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            n = (size_t)snprintf(esc, sizeof esc, "\\u202%c", p[2] == 0xA8 ? '8' : '9'), piece = esc;
            p += 2;
        }
        if (piece ? json_put_raw(out, len, cap, max, piece, n) < 0
                  : json_put_raw(out, len, cap, max, (const char *)p, 1) < 0)
            return -1;
    }
    return json_put_raw(out, len, cap, max, "\"", 1);
}
