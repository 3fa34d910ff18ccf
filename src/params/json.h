/* A strict JSON reader (RFC 8259) for request bodies, on the plain C heap: it runs in the server's connection
 * threads, beside the work, so it shares no state with the rest of the program (no arena, no diag record). */
#ifndef CMP_PARAMS_JSON_H
#define CMP_PARAMS_JSON_H
#include <stdbool.h>
#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    bool boolean;
    char *text;       /* JSON_STRING: the value, unescaped UTF-8 (no NUL inside); JSON_NUMBER: as written */
    size_t n;         /* items or members */
    struct json **items;
    char **keys;      /* JSON_OBJECT: member names, unescaped, in the order written */
} json;

#define JSON_MAX_DEPTH 64
#define JSON_MAX_MEMBERS 256 /* members of one object: the duplicate check is quadratic in them */

/* Parses len bytes. NULL on an error, with err (cap bytes) saying where and what: "byte 17: expected ':'". A name
 * given twice in one object, a string holding NUL (\u0000) or bytes that are not UTF-8, and nesting deeper than
 * JSON_MAX_DEPTH are errors too. */
json *json_parse(const char *text, size_t len, char *err, size_t cap);
void json_free(json *j);
/* The member's value, or NULL. */
const json *json_get(const json *obj, const char *key);
/* "a string", "a number", "an object", ... for messages. */
const char *json_type_name(json_type t);
/* Appends s as a JSON string (quotes included) to the growable *out (malloc'd, *len used, *cap allocated). Returns
 * 0, or -1 when it would pass max bytes in all. */
int json_put_string(char **out, size_t *len, size_t *cap, size_t max, const char *s);
int json_put_raw(char **out, size_t *len, size_t *cap, size_t max, const char *s, size_t n);
#endif
