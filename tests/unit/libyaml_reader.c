#include "libyaml_reader.h"

#include <stdbool.h>
#include <string.h>

#include "util/buf.h"

int libyaml_scalars(arena *a, const char *text, const char **out, int max)
{
    yaml_parser_t p;
    yaml_event_t e;
    int n = 0, ok = 1;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    for (;;) {
        if (!yaml_parser_parse(&p, &e)) {
            ok = 0;
            break;
        }
        if (e.type == YAML_SCALAR_EVENT && n < max)
            out[n++] = arena_strndup(a, (const char *)e.data.scalar.value, e.data.scalar.length);
        int end = e.type == YAML_DOCUMENT_END_EVENT || e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
        if (end)
            break;
    }
    yaml_parser_delete(&p);
    return ok ? n : -1;
}

static bool yaml11_null(const yaml_event_t *e)
{
    const char *v = (const char *)e->data.scalar.value, *tag = (const char *)e->data.scalar.tag;
    if (tag)
        return !strcmp(tag, YAML_NULL_TAG);
    return e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"));
}

const char *libyaml_values(arena *a, const char *text)
{
    yaml_parser_t p;
    yaml_event_t e;
    buf out = {0};
    bool ok = true;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    for (bool end = false; !end;) {
        if (!yaml_parser_parse(&p, &e)) {
            ok = false;
            break;
        }
        switch (e.type) {
        case YAML_DOCUMENT_START_EVENT: buf_puts(&out, "---\n"); break;
        case YAML_DOCUMENT_END_EVENT: buf_puts(&out, "...\n"); break;
        case YAML_MAPPING_START_EVENT: buf_puts(&out, "{\n"); break;
        case YAML_MAPPING_END_EVENT: buf_puts(&out, "}\n"); break;
        case YAML_SEQUENCE_START_EVENT: buf_puts(&out, "[\n"); break;
        case YAML_SEQUENCE_END_EVENT: buf_puts(&out, "]\n"); break;
        case YAML_SCALAR_EVENT:
            if (yaml11_null(&e)) {
                buf_puts(&out, "null\n");
                break;
            }
            buf_puts(&out, e.data.scalar.tag ? (const char *)e.data.scalar.tag
                           : e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "?" : "!");
            buf_putc(&out, ' ');
            buf_put(&out, (const char *)e.data.scalar.value, e.data.scalar.length);
            buf_putc(&out, '\n');
            break;
        case YAML_STREAM_END_EVENT: end = true; break;
        default: break;
        }
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&p);
    const char *s = ok ? arena_strndup(a, out.data ? out.data : "", out.len) : NULL;
    buf_free(&out);
    return s;
}

const char *libyaml_values_no_null_docs(arena *a, const char *text)
{
    const char *v = libyaml_values(a, text);
    if (!v)
        return NULL;
    static const char null_doc[] = "---\nnull\n...\n";
    buf b = {0};
    for (const char *p = v; *p;) {
        const char *doc = strstr(p + 1, "---\n");
        size_t n = doc ? (size_t)(doc - p) : strlen(p);
        if (n != strlen(null_doc) || strncmp(p, null_doc, n))
            buf_put(&b, p, n);
        p += n;
    }
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

const char *libyaml_mismatch(arena *a, const char *values, const char *src, const char *back, const char *text)
{
    if (back && !strcmp(back, values))
        return NULL;
    return arena_printf(a, "libyaml (YAML 1.1) reads\n%s\nfrom\n%s\nbut\n%s\nfrom the written\n%s", values, src,
                        back ? back : "(refused)", text);
}
