/* floor_libyaml: the libyaml floor for the benchmark.
 *
 *   floor_libyaml FILE > out.yaml
 *
 * Parses a YAML stream with libyaml's event parser and hands every event straight to libyaml's
 * emitter (stdout). No tree is built: this is the cost of tokenizing and re-serializing the
 * stream, a lower bound for any YAML-in, YAML-out tool. Prints the number of documents on stderr.
 */
#include <stdio.h>
#include <yaml.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: floor_libyaml FILE\n", stderr);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    static char ibuf[1 << 16], obuf[1 << 16];
    setvbuf(in, ibuf, _IOFBF, sizeof ibuf);
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

    yaml_parser_t parser;
    yaml_emitter_t emitter;
    if (!yaml_parser_initialize(&parser) || !yaml_emitter_initialize(&emitter)) {
        fputs("floor_libyaml: out of memory\n", stderr);
        return 1;
    }
    yaml_parser_set_input_file(&parser, in);
    yaml_emitter_set_output_file(&emitter, stdout);
    yaml_emitter_set_unicode(&emitter, 1);
    yaml_emitter_set_width(&emitter, -1);
    yaml_emitter_set_indent(&emitter, 2);

    unsigned long docs = 0;
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            fprintf(stderr, "floor_libyaml: %s: %s at line %lu\n", argv[1],
                    parser.problem ? parser.problem : "parse error",
                    (unsigned long)parser.problem_mark.line + 1);
            rc = 1;
            break;
        }
        yaml_event_type_t type = ev.type;
        if (type == YAML_DOCUMENT_START_EVENT)
            docs++;
        if (!yaml_emitter_emit(&emitter, &ev)) { /* takes ownership of ev */
            fprintf(stderr, "floor_libyaml: emit: %s\n",
                    emitter.problem ? emitter.problem : "error");
            rc = 1;
            break;
        }
        if (type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_emitter_delete(&emitter);
    yaml_parser_delete(&parser);
    fclose(in);
    if (fflush(stdout) != 0) {
        perror("floor_libyaml: write");
        rc = 1;
    }
    if (rc == 0)
        fprintf(stderr, "floor_libyaml: %lu documents\n", docs);
    return rc;
}
