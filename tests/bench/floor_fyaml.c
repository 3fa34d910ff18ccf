/* floor_fyaml: the libfyaml floor for the benchmark.
 *
 *   floor_fyaml FILE > out.yaml
 *
 * Loads every document of a YAML stream as a libfyaml document (one fy_parse_load_document per
 * document), keeps all of them alive, emits them to stdout in block style and only then frees
 * them. That is the least a renderer pays when it holds every object as a libfyaml document.
 * Prints the number of documents on stderr.
 */
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: floor_fyaml FILE\n", stderr);
        return 2;
    }
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_DISABLE_DEPTH_LIMIT};
    struct fy_parser *fyp = fy_parser_create(&cfg);
    if (!fyp || fy_parser_set_input_file(fyp, argv[1]) != 0) {
        fprintf(stderr, "floor_fyaml: cannot open %s\n", argv[1]);
        return 1;
    }

    size_t n = 0, cap = 1024;
    struct fy_document **docs = malloc(cap * sizeof *docs);
    if (!docs)
        return 1;
    struct fy_document *fyd;
    while ((fyd = fy_parse_load_document(fyp)) != NULL) {
        if (n == cap) {
            cap *= 2;
            struct fy_document **grown = realloc(docs, cap * sizeof *docs);
            if (!grown)
                return 1;
            docs = grown;
        }
        docs[n++] = fyd;
    }
    if (fy_parser_get_stream_error(fyp)) {
        fprintf(stderr, "floor_fyaml: %s: YAML parse error after %zu documents\n", argv[1], n);
        return 1;
    }

    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    enum fy_emitter_cfg_flags ef = FYECF_MODE_BLOCK | FYECF_INDENT_2 | FYECF_WIDTH_INF |
                                   FYECF_DOC_START_MARK_ON | FYECF_DOC_END_MARK_OFF;
    for (size_t i = 0; i < n; i++) {
        if (fy_document_root(docs[i]) == NULL)
            continue; /* empty document */
        if (fy_emit_document_to_fp(docs[i], ef, stdout) != 0) {
            fprintf(stderr, "floor_fyaml: emit failed at document %zu\n", i);
            return 1;
        }
    }
    if (fflush(stdout) != 0) {
        perror("floor_fyaml: write");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        fy_parse_document_destroy(fyp, docs[i]);
    free(docs);
    fy_parser_destroy(fyp);
    fprintf(stderr, "floor_fyaml: %zu documents\n", n);
    return 0;
}
