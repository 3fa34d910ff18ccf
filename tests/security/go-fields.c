/* Prints the struct tables of src/decode for decode-differential.sh, which checks each field against the real
 * kustomize and helm. One line per field: ROOT <tab> PATH <tab> FIELD <tab> KIND, where PATH is where the struct
 * sits below ROOT ("patches[].target", "." for the top), and KIND is S (a scalar), L (a list), D (data: a map or
 * interface{}) or T (a struct). Each struct is listed once per root, at the first path that reaches it.
 *   go-fields kustomization | plugins | helm */
#include <stdio.h>
#include <string.h>

#include "decode/decode.h"

static const go_struct *done[256];
static int ndone;

static char kind_of(const go_field *f)
{
    return f->flags & GO_LIST ? 'L' : f->flags & GO_DATA ? 'D' : f->of ? 'T' : 'S';
}

/* Breadth first, so that a struct is listed at its shortest path. */
static void levels(const char *root, const go_struct *top)
{
    struct { const go_struct *t; char path[512]; } queue[256];
    int head = 0, tail = 0;
    ndone = 0;
    queue[tail].t = top;
    queue[tail++].path[0] = 0;
    done[ndone++] = top;
    while (head < tail) {
        const go_struct *t = queue[head].t;
        char path[512];
        snprintf(path, sizeof path, "%s", queue[head++].path);
        for (const go_field *f = t->fields; f->name; f++) {
            printf("%s\t%s\t%s\t%c\n", root, *path ? path : ".", f->name, kind_of(f));
            int seen = 0;
            for (int i = 0; f->of && i < ndone; i++)
                seen |= done[i] == f->of;
            if (f->of && !seen && tail < 256) {
                done[ndone++] = f->of;
                queue[tail].t = f->of;
                snprintf(queue[tail++].path, sizeof queue[0].path, "%s%s%s%s", path, *path ? "." : "", f->name,
                         f->flags & GO_LIST ? "[]" : "");
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "kustomization")) {
        levels("Kustomization", &go_kustomization);
    } else if (!strcmp(what, "plugins")) {
        for (int i = 0; go_kustomize_plugins[i]; i++)
            for (const go_field *f = go_kustomize_plugins[i]->fields; f->name; f++)
                printf("%s\t.\t%s\t%c\n", go_kustomize_plugin_kinds[i], f->name, kind_of(f));
    } else if (!strcmp(what, "helm")) {
        levels("Chart.yaml", &go_helm_metadata);
        for (const go_field *f = go_helm_lock.fields; f->name; f++)
            printf("Chart.lock\t.\t%s\t%c\n", f->name, kind_of(f));
    } else {
        fprintf(stderr, "usage: go-fields kustomization|plugins|helm\n");
        return 2;
    }
    return 0;
}
