/* shapes: write a package whose input is one of the shapes that cost the render the most memory per input byte.
 *
 *   shapes SHAPE BYTES DIR     writes DIR/Kptfile and DIR/r*.yaml, about BYTES of input in all; prints the bytes
 *   shapes --list              the shape names, one a line
 *
 * For `tests/bench/memory` (peak RSS per input byte, the table README's Reliability section quotes) and for the
 * derivation of the input limits' defaults from the memory budget (src/settings/host.c). Every shape is valid input
 * within the default limits (objects, depth, alias nodes per file, file size), written the way an author could, and
 * the output depends only on SHAPE and BYTES. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static FILE *out;
static size_t written, limit;
static char dir[4096];

static void die(const char *what)
{
    fprintf(stderr, "shapes: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void put(const char *s)
{
    size_t n = strlen(s);
    if (fwrite(s, 1, n, out) != n)
        die("write");
    written += n;
}

static void open_file(const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (out && fclose(out) != 0)
        die("close");
    out = fopen(path, "w");
    if (!out)
        die(path);
}

static int left(size_t need)
{
    return written + need <= limit;
}

/* One object whose data is what the shape writes: the header line of its "data:" field is the caller's. */
static void object_head(const char *name)
{
    char s[256];
    snprintf(s, sizeof s, "apiVersion: v1\nkind: Shape\nmetadata:\n  name: %s\n", name);
    put(s);
}

static void kptfile(const char *pipeline)
{
    open_file("Kptfile");
    put("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: shape\n  annotations:\n"
        "    config.kubernetes.io/local-config: \"true\"\n");
    if (pipeline)
        put(pipeline);
}

/* objects of three lines each, as small as an object gets (default object limit: 500,000) */
static void tiny_objects(void)
{
    open_file("r.yaml");
    char s[128];
    for (unsigned i = 0; i < 500000 && left(40); i++) {
        /* a label and an annotation of its own: an object lacking the map would hold the one map of the pairs
         * that every such object shares (src/functions/krm/fieldspec.c), and grow by a pair, not by 200 */
        snprintf(s, sizeof s, "kind: K\napiVersion: v\nmetadata: {name: o%u, labels: {a: b}, annotations: {a: b}}\n---\n", i);
        put(s);
    }
}

/* one long flow sequence of one-character scalars: two bytes an item */
static void flow_seq(void)
{
    open_file("r.yaml");
    object_head("flow");
    put("data: [1");
    while (left(3))
        put(",1");
    put("]\n");
}

/* a block sequence of null items: "  -\n", four bytes an item (libfyaml 0.7 refuses "-\n" at the key's column) */
static void null_items(void)
{
    open_file("r.yaml");
    object_head("nulls");
    put("data:\n");
    while (left(5))
        put("  -\n");
}

/* nested flow sequences 500 deep (the depth limit is 512), two bytes a level, one after another */
static void deep_seqs(void)
{
    open_file("r.yaml");
    object_head("deep");
    put("data:\n");
    while (left(1100)) {
        put("- ");
        for (int i = 0; i < 500; i++)
            put("[");
        for (int i = 0; i < 500; i++)
            put("]");
        put("\n");
    }
}

/* nested one-pair flow maps 500 deep: "{a: " and "}", five bytes a level */
static void deep_maps(void)
{
    open_file("r.yaml");
    object_head("deepmaps");
    put("data:\n");
    while (left(2600)) {
        put("- ");
        for (int i = 0; i < 500; i++)
            put("{a: ");
        put("1");
        for (int i = 0; i < 500; i++)
            put("}");
        put("\n");
    }
}

/* a map of distinct short keys: each one interned */
static void many_keys(void)
{
    open_file("r.yaml");
    object_head("keys");
    put("data:\n");
    char s[64];
    for (unsigned i = 0; left(16); i++) {
        snprintf(s, sizeof s, "  %x: 1\n", i);
        put(s);
    }
}

/* distinct short scalars in a flow sequence: each one interned */
static void short_scalars(void)
{
    open_file("r.yaml");
    object_head("scalars");
    put("data: [");
    char s[64];
    for (unsigned i = 0; left(16); i++) {
        snprintf(s, sizeof s, "%s%x", i ? "," : "", i);
        put(s);
    }
    put("]\n");
}

/* distinct keys of 1,000 bytes */
static void long_keys(void)
{
    open_file("r.yaml");
    object_head("longkeys");
    put("data:\n");
    char key[1100];
    memset(key, 'k', 1000);
    key[1000] = 0;
    for (unsigned i = 0; left(1020); i++) {
        char s[1200];
        snprintf(s, sizeof s, "  %08x%s: 1\n", i, key + 8);
        put(s);
    }
}

/* a line comment on every item */
static void line_comments(void)
{
    open_file("r.yaml");
    object_head("comments");
    put("data:\n");
    while (left(8))
        put("- 1 #\n");
}

/* a comment line above every item */
static void head_comments(void)
{
    open_file("r.yaml");
    object_head("heads");
    put("data:\n");
    while (left(8))
        put("#\n- 1\n");
}

/* a tag on every item */
static void tags(void)
{
    open_file("r.yaml");
    object_head("tags");
    put("data:\n");
    while (left(12))
        put("- !!str 1\n");
}

/* Per file: an anchored sequence of 1,000 items and 999 aliases of it, so that the aliases copy 999,000 nodes (the
 * default CMP_MAX_ALIAS_NODES is 1,000,000 per file); as many files as the bytes allow. */
static void aliases(void)
{
    for (unsigned f = 0; f == 0 || left(3000 + 5000); f++) {
        char name[64];
        snprintf(name, sizeof name, "r%05u.yaml", f);
        open_file(name);
        char s[64];
        snprintf(s, sizeof s, "a%u", f);
        object_head(s);
        put("data:\n  a: &a [1");
        for (int i = 1; i < 1000; i++)
            put(",1");
        put("]\n  b: [*a");
        for (int i = 1; i < 999; i++)
            put(",*a");
        put("]\n");
    }
}

/* The functions grow the tree: set-labels and set-annotations with 200 entries each on every object (a pair per
 * entry per object, twice, since set-labels also sets the labels of templates and selectors it finds). A pair costs
 * its entry alone since the functions share one value node per entry across objects (node_value_shared): 100 of
 * each then fitted the security case's 48 MB budget. */
static void function_growth(void)
{
    char step[100000], *p = step;
    p += sprintf(p, "pipeline:\n  mutators:\n");
    const char *fns[] = {"set-labels:v0.2.0", "set-annotations:v0.1.4"};
    for (int f = 0; f < 2; f++) {
        p += sprintf(p, "    - image: ghcr.io/kptdev/krm-functions-catalog/%s\n      configMap:\n", fns[f]);
        for (int i = 0; i < 200; i++)
            p += sprintf(p, "        k%03d: v\n", i);
    }
    kptfile(step);
    open_file("r.yaml");
    char s[128];
    for (unsigned i = 0; i < 500000 && left(40); i++) {
        /* a label and an annotation of its own: an object lacking the map would hold the one map of the pairs
         * that every such object shares (src/functions/krm/fieldspec.c), and grow by a pair, not by 200 */
        snprintf(s, sizeof s, "kind: K\napiVersion: v\nmetadata: {name: o%u, labels: {a: b}, annotations: {a: b}}\n---\n", i);
        put(s);
    }
}

static const struct shape {
    const char *name;
    void (*write)(void);
} shapes[] = {
    {"tiny-objects", tiny_objects}, {"flow-seq", flow_seq},           {"null-items", null_items},
    {"deep-seqs", deep_seqs},       {"deep-maps", deep_maps},         {"many-keys", many_keys},
    {"short-scalars", short_scalars}, {"long-keys", long_keys},       {"line-comments", line_comments},
    {"head-comments", head_comments}, {"tags", tags},                 {"aliases", aliases},
    {"function-growth", function_growth},
};
#define NSHAPES (sizeof shapes / sizeof *shapes)

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < NSHAPES; i++)
            puts(shapes[i].name);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: shapes SHAPE BYTES DIR | shapes --list\n");
        return 2;
    }
    const struct shape *sh = NULL;
    for (size_t i = 0; i < NSHAPES; i++)
        if (!strcmp(argv[1], shapes[i].name))
            sh = &shapes[i];
    if (!sh) {
        fprintf(stderr, "shapes: unknown shape %s (shapes --list)\n", argv[1]);
        return 2;
    }
    limit = strtoull(argv[2], NULL, 10);
    snprintf(dir, sizeof dir, "%s", argv[3]);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        die(dir);
    if (sh->write != function_growth) {
        kptfile(NULL);
        written = 0; /* the Kptfile is not the shape (function-growth's is: its pipeline is what grows the tree) */
    }
    sh->write();
    if (fclose(out) != 0)
        die("close");
    printf("%zu\n", written);
    return 0;
}
