#include "libyaml_reader.h"

#include <string.h>

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
