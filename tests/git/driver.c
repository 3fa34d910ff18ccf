/* Test driver for src/git, built by tests/git/run from the project's objects (everything but main.o):
 *   driver meta DIR            ARGOCD_APP_* from the environment, completed by gitsrc_app_meta; prints found=0|1
 *                              and the shell lines of gitsrc_meta_env
 *   driver pkg get SRC [DEST]  pkg_get, printing what `cmp-generate pkg get` prints (the suite uses the binary
 *                              itself when it has it)
 *   driver parse ARG           pkg_source_parse: url, key, repo, directory, ref
 *   driver yget FILE KEY...    the scalar at the key path in a one-document YAML file ("" when missing)
 *   driver ykeys FILE [KEY...] the keys of the map at the key path, in order, one per line */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/host.h"
#include "argocd/metadata.h"
#include "git/git.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/load.h"

static node *load(arena *a, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        perror(file);
        exit(1);
    }
    buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_put(&b, chunk, n);
    fclose(f);
    char *text = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    node *root = NULL;
    if (yaml_load_one(a, strtab_new(a), NULL, file, text, strlen(text), &root) < 0) {
        fprintf(stderr, "driver: %s\n", diag_message());
        exit(1);
    }
    return root;
}

static node *walk(node *n, int argc, char **argv)
{
    for (int i = 0; i < argc && n; i++)
        n = is_map(n) ? map_get(n, argv[i]) : NULL;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: driver meta|pkg|parse|yget|ykeys ...\n", stderr);
        return 2;
    }
    const char *cmd = argv[1];
    arena *a = arena_new();
    int rc = 0;
    gitsrc_env genv;
    host_git_env(&genv);
    if (!strcmp(cmd, "pkg") && (argc == 4 || argc == 5) && !strcmp(argv[2], "get")) {
        pkg_get_result r;
        diag_set_step("pkg get");
        if (pkg_get(a, &genv, argv[3], argc == 5 ? argv[4] : NULL, &r) < 0) {
            fprintf(stderr, "cmp-generate: %s\n", diag_message());
            rc = 1;
        } else {
            fprintf(stderr, "cmp-generate: pkg get: %s%s@%s (%.12s) -> %s\n", r.repo, r.directory, r.ref, r.commit,
                    r.dest);
        }
    } else if (!strcmp(cmd, "meta") && argc == 3) {
        app_meta am;
        bool found = false;
        gitsrc_meta m = {0};
        if (host_app_meta(a, &am) == 0)
            m = (gitsrc_meta){am.name, am.namespace, am.project, am.revision, am.repo, am.target_revision, am.path};
        if (diag_failed() || gitsrc_app_meta(a, &genv, argv[2], meta_value_check, &m, &found) < 0) {
            fprintf(stderr, "driver: %s\n", diag_message());
            rc = 1;
        } else {
            buf b = {0};
            gitsrc_meta_env(&b, &m);
            printf("found=%d\n%.*s", found, (int)b.len, b.data ? b.data : "");
            buf_free(&b);
        }
    } else if (!strcmp(cmd, "parse") && argc == 3) {
        pkg_source s;
        if (pkg_source_parse(a, argv[2], &s) < 0) {
            fprintf(stderr, "driver: %s\n", diag_message());
            rc = 1;
        } else {
            printf("url=%s\nkey=%s\nrepo=%s\ndirectory=%s\nref=%s\nlocal=%d\n", s.url, s.key, s.repo, s.directory,
                   s.ref ? s.ref : "", s.local);
        }
    } else if (!strcmp(cmd, "yget") && argc >= 3) {
        const char *s = scalar(walk(load(a, argv[2]), argc - 3, argv + 3));
        printf("%s\n", s ? s : "");
    } else if (!strcmp(cmd, "ykeys") && argc >= 3) {
        node *n = walk(load(a, argv[2]), argc - 3, argv + 3);
        for (uint32_t i = 0; is_map(n) && i < node_len(n); i++)
            printf("%s\n", scalar(map_key(n, i)));
    } else {
        fputs("driver: bad arguments\n", stderr);
        rc = 2;
    }
    arena_free(a);
    return rc;
}
