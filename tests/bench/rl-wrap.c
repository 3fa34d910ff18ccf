/* rl-wrap: the glue between the stages of the benchmark's exec chain (what kpt does in memory
 * between two function containers), streamed through libyaml events without building a tree.
 *
 *   rl-wrap [-c FNCONFIG] FILE...   wrap the documents of the YAML streams FILE... ("-" = stdin)
 *                                   as the items of a ResourceList; FNCONFIG (the first document
 *                                   of that file) becomes its functionConfig
 *   rl-wrap -r [-c FNCONFIG]        read a ResourceList on stdin (a function's output), drop its
 *                                   functionConfig and results, add FNCONFIG as functionConfig
 *   rl-wrap -u                      read a ResourceList on stdin and write its items as a
 *                                   multi-document YAML stream, leaving out the local-config
 *                                   objects (config.kubernetes.io/local-config other than "false"),
 *                                   as `cmp-generate render` does
 *
 * The result goes to stdout. Items are not annotated with config.kubernetes.io/path or index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static yaml_emitter_t E;
static const char *cur_name = "-";

static void die_parse(yaml_parser_t *p)
{
    fprintf(stderr, "rl-wrap: %s: %s at line %lu\n", cur_name,
            p->problem ? p->problem : "parse error", (unsigned long)p->problem_mark.line + 1);
    exit(1);
}

static void next(yaml_parser_t *p, yaml_event_t *ev)
{
    if (!yaml_parser_parse(p, ev))
        die_parse(p);
}

static void emit(yaml_event_t *ev)
{
    if (!yaml_emitter_emit(&E, ev)) {
        fprintf(stderr, "rl-wrap: emit: %s\n", E.problem ? E.problem : "error");
        exit(1);
    }
}

static void emit_scalar(const char *s)
{
    yaml_event_t ev;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                 YAML_PLAIN_SCALAR_STYLE);
    emit(&ev);
}

static int is_start(const yaml_event_t *ev)
{
    return ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT;
}

static int is_end(const yaml_event_t *ev)
{
    return ev->type == YAML_MAPPING_END_EVENT || ev->type == YAML_SEQUENCE_END_EVENT;
}

/* Copy (or, with keep=0, discard) the rest of a node whose first event is *first. */
static void pass_node(yaml_parser_t *p, yaml_event_t *first, int keep)
{
    long depth = is_start(first);
    if (keep)
        emit(first);
    else
        yaml_event_delete(first);
    while (depth > 0) {
        yaml_event_t ev;
        next(p, &ev);
        if (is_start(&ev))
            depth++;
        else if (is_end(&ev))
            depth--;
        if (keep)
            emit(&ev);
        else
            yaml_event_delete(&ev);
    }
}

static int scalar_is(const yaml_event_t *ev, const char *s)
{
    return ev->type == YAML_SCALAR_EVENT && ev->data.scalar.length == strlen(s) &&
           memcmp(ev->data.scalar.value, s, ev->data.scalar.length) == 0;
}

static FILE *open_in(const char *path)
{
    cur_name = path;
    if (strcmp(path, "-") == 0)
        return stdin;
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

/* Emit the root node of every non-empty document of FILE (only the first one if first_only). */
static void copy_documents(const char *path, int first_only)
{
    static char buf[1 << 16];
    FILE *f = open_in(path);
    setvbuf(f, buf, _IOFBF, sizeof buf);
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    int done = 0;
    for (;;) {
        yaml_event_t ev;
        next(&p, &ev);
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT ||
            t == YAML_DOCUMENT_END_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        /* the root node of a document */
        int empty = t == YAML_SCALAR_EVENT && ev.data.scalar.length == 0 &&
                    ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        int keep = !empty && !(first_only && done);
        pass_node(&p, &ev, keep);
        done |= keep;
    }
    yaml_parser_delete(&p);
    if (f != stdin)
        fclose(f);
}

static void begin_output(int document)
{
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    emit(&ev);
    if (document) {
        yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
        emit(&ev);
    }
}

static void end_output(int document)
{
    yaml_event_t ev;
    if (document) {
        yaml_document_end_event_initialize(&ev, 1);
        emit(&ev);
    }
    yaml_stream_end_event_initialize(&ev);
    emit(&ev);
}

static void emit_fnconfig(const char *fc)
{
    if (!fc)
        return;
    emit_scalar("functionConfig");
    copy_documents(fc, 1);
}

static void wrap(const char *fc, char **files, int nfiles)
{
    yaml_event_t ev;
    begin_output(1);
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    emit(&ev);
    emit_scalar("apiVersion");
    emit_scalar("config.kubernetes.io/v1");
    emit_scalar("kind");
    emit_scalar("ResourceList");
    emit_scalar("items");
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
    emit(&ev);
    for (int i = 0; i < nfiles; i++)
        copy_documents(files[i], 0);
    yaml_sequence_end_event_initialize(&ev);
    emit(&ev);
    emit_fnconfig(fc);
    yaml_mapping_end_event_initialize(&ev);
    emit(&ev);
    end_output(1);
}

/* Read up to the ResourceList's top-level mapping; returns with the parser positioned on a key. */
static void open_resource_list(yaml_parser_t *p)
{
    yaml_event_t ev;
    for (int i = 0; i < 3; i++) {
        next(p, &ev);
        yaml_event_type_t want[] = {YAML_STREAM_START_EVENT, YAML_DOCUMENT_START_EVENT,
                                    YAML_MAPPING_START_EVENT};
        if (ev.type != want[i]) {
            fprintf(stderr, "rl-wrap: stdin: not a ResourceList (a YAML mapping)\n");
            exit(1);
        }
        yaml_event_delete(&ev);
    }
}

static void rewrap(const char *fc)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, stdin);
    open_resource_list(&p);
    yaml_event_t ev;
    begin_output(1);
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    emit(&ev);
    for (;;) {
        yaml_event_t key, val;
        next(&p, &key);
        if (key.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&key);
            break;
        }
        int keep = !scalar_is(&key, "functionConfig") && !scalar_is(&key, "results");
        pass_node(&p, &key, keep);
        next(&p, &val);
        pass_node(&p, &val, keep);
    }
    yaml_parser_delete(&p);
    emit_fnconfig(fc);
    yaml_mapping_end_event_initialize(&ev);
    emit(&ev);
    end_output(1);
}

/* --- unwrap: buffer one item's events, find metadata.annotations[local-config], emit or drop --- */

static const char *const lc_path[] = {"metadata", "annotations", "config.kubernetes.io/local-config"};

struct level {
    int is_map;
    unsigned long n; /* children seen; in a mapping, even = next is a key */
    int on_path;     /* this mapping is item, item.metadata or item.metadata.annotations */
    int hit;         /* the last key matched lc_path[depth] */
};

static yaml_event_t *buf;
static size_t nbuf, capbuf;

static void push_event(yaml_event_t *ev)
{
    if (nbuf == capbuf) {
        capbuf = capbuf ? capbuf * 2 : 256;
        buf = realloc(buf, capbuf * sizeof *buf);
        if (!buf) {
            fputs("rl-wrap: out of memory\n", stderr);
            exit(1);
        }
    }
    buf[nbuf++] = *ev;
}

static void unwrap_item(yaml_parser_t *p, yaml_event_t *first)
{
    struct level st[3]; /* item, item.metadata, item.metadata.annotations; deeper is not tracked */
    int depth = 0, local = 0;
    yaml_event_t ev = *first;
    nbuf = 0;
    for (;;) {
        push_event(&ev);
        struct level *top = depth >= 1 && depth <= 3 ? &st[depth - 1] : NULL;
        int is_key = top && top->is_map && top->n % 2 == 0;
        if (is_start(&ev)) {
            if (depth < 3)
                st[depth] = (struct level){
                    ev.type == YAML_MAPPING_START_EVENT, 0,
                    ev.type == YAML_MAPPING_START_EVENT && (depth == 0 || (!is_key && top->hit)),
                    0};
            depth++;
            top = NULL; /* counted in the parent when it ends */
        } else if (is_end(&ev)) {
            depth--;
            top = depth >= 1 && depth <= 3 ? &st[depth - 1] : NULL;
        } else if (top && is_key) {
            top->hit = top->on_path && scalar_is(&ev, lc_path[depth - 1]);
        } else if (top && top->hit && depth == 3 && ev.type == YAML_SCALAR_EVENT) {
            local = !scalar_is(&ev, "false");
        }
        if (top)
            top->n++;
        if (depth == 0)
            break;
        next(p, &ev);
    }
    if (local) {
        for (size_t i = 0; i < nbuf; i++)
            yaml_event_delete(&buf[i]);
        return;
    }
    yaml_event_t d;
    yaml_document_start_event_initialize(&d, NULL, NULL, NULL, 0);
    emit(&d);
    for (size_t i = 0; i < nbuf; i++)
        emit(&buf[i]);
    yaml_document_end_event_initialize(&d, 1);
    emit(&d);
}

static void unwrap(void)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, stdin);
    open_resource_list(&p);
    begin_output(0);
    for (;;) {
        yaml_event_t key, val;
        next(&p, &key);
        if (key.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&key);
            break;
        }
        int items = scalar_is(&key, "items");
        pass_node(&p, &key, 0);
        next(&p, &val);
        if (!items || val.type != YAML_SEQUENCE_START_EVENT) {
            pass_node(&p, &val, 0);
            continue;
        }
        yaml_event_delete(&val);
        for (;;) {
            yaml_event_t ev;
            next(&p, &ev);
            if (ev.type == YAML_SEQUENCE_END_EVENT) {
                yaml_event_delete(&ev);
                break;
            }
            unwrap_item(&p, &ev);
        }
    }
    yaml_parser_delete(&p);
    end_output(0);
    free(buf);
}

static void usage(void)
{
    fputs("usage: rl-wrap [-c FNCONFIG] FILE...\n"
          "       rl-wrap -r [-c FNCONFIG]   < ResourceList\n"
          "       rl-wrap -u                 < ResourceList\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *fc = NULL;
    int mode = 'w', i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            fc = argv[++i];
        else if (strcmp(argv[i], "-r") == 0)
            mode = 'r';
        else if (strcmp(argv[i], "-u") == 0)
            mode = 'u';
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else
            usage();
    }
    if ((mode == 'w') != (i < argc) || (mode == 'u' && fc))
        usage();

    static char ibuf[1 << 16], obuf[1 << 16];
    setvbuf(stdin, ibuf, _IOFBF, sizeof ibuf);
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    yaml_emitter_initialize(&E);
    yaml_emitter_set_output_file(&E, stdout);
    yaml_emitter_set_unicode(&E, 1);
    yaml_emitter_set_width(&E, -1);
    yaml_emitter_set_indent(&E, 2);

    if (mode == 'w')
        wrap(fc, argv + i, argc - i);
    else if (mode == 'r')
        rewrap(fc);
    else
        unwrap();

    yaml_emitter_delete(&E);
    if (fflush(stdout) != 0) {
        perror("rl-wrap: write");
        return 1;
    }
    return 0;
}
