/* floor_fyaml_events: the libfyaml event-parse floor for the benchmark.
 *
 *   floor_fyaml_events FILE
 *
 * Reads FILE into memory and runs libfyaml's event parser over it (fy_parser_parse), taking the text of every
 * scalar (fy_token_get_text), as cmp-generate's loader does before it builds its own tree. No tree, no output:
 * this is what reading the input through libfyaml costs at least, the part of a render no tree design can remove.
 * Prints the number of documents and scalars on stderr.
 */
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: floor_fyaml_events FILE\n", stderr);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, n;
    char *data = malloc(cap);
    while (data && (n = fread(data + len, 1, cap - len, in)) > 0) {
        len += n;
        if (len == cap) {
            char *grown = realloc(data, cap *= 2);
            if (!grown)
                free(data);
            data = grown;
        }
    }
    fclose(in);
    if (!data) {
        fputs("floor_fyaml_events: out of memory\n", stderr);
        return 1;
    }
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_DISABLE_DEPTH_LIMIT};
    struct fy_parser *p = fy_parser_create(&cfg);
    if (!p || fy_parser_set_string(p, data, len) != 0) {
        fprintf(stderr, "floor_fyaml_events: cannot parse %s\n", argv[1]);
        return 1;
    }
    unsigned long docs = 0, scalars = 0, bytes = 0;
    struct fy_event *e;
    while ((e = fy_parser_parse(p))) {
        if (e->type == FYET_DOCUMENT_START) {
            docs++;
        } else if (e->type == FYET_SCALAR) {
            size_t tl;
            const char *t = fy_token_get_text(fy_event_get_token(e), &tl);
            scalars++;
            bytes += t ? tl : 0;
        }
        fy_parser_event_free(p, e);
    }
    int rc = 0;
    if (fy_parser_get_stream_error(p)) {
        fprintf(stderr, "floor_fyaml_events: %s: YAML parse error after %lu documents\n", argv[1], docs);
        rc = 1;
    }
    fy_parser_destroy(p);
    free(data);
    if (rc == 0)
        fprintf(stderr, "floor_fyaml_events: %lu documents, %lu scalars (%lu bytes)\n", docs, scalars, bytes);
    return rc;
}
