/* What an engine (src/helm, src/kustomize) is given by whoever runs it, in place of a function's context (fn_ctx):
 * memory, where an error points, the repository it is confined to, the operator's settings it reads, the limits,
 * and, through run.h, the runner of its children. A function step makes one from its fn_ctx (fn_engine in
 * functions/tools/external.h); the helm guard, a program of its own with no step, from its arguments. So the
 * engines know nothing of steps, items or results, and sit below the functions in the stack (tests/harness). */
#ifndef CMP_ENGINE_ENGINE_H
#define CMP_ENGINE_ENGINE_H
#include <stdbool.h>

#include "util/arena.h"
#include "yaml/tree.h"

struct limits; /* util/fsutil.h */

/* The operator's helm settings (the sidecar's environment: settings/host.c). */
typedef struct engine_helm {
    const char *bin;                   /* HELM_BIN; NULL: looked up on path */
    const char *path;                  /* PATH, where helm is looked up */
    const char *credentials_dir;       /* CMP_HELM_CREDENTIALS_DIR; NULL when unset */
    const char *plain_http_registries; /* CMP_HELM_PLAIN_HTTP_REGISTRIES; NULL when unset */
    bool verify_prov;                  /* the helm-verify-prov parameter */
    const char *keyring;               /* CMP_HELM_KEYRING; NULL when unset */
} engine_helm;

/* The operator's settings for every child (CMP_CHILD_*, TMPDIR): functions/host.h says what each one means. */
typedef struct engine_child {
    const char *tmpdir;         /* where scratch space goes; NULL: /tmp */
    const char *const *env;     /* the sidecar variables every child gets, NULL-terminated; NULL: none */
    int timeout_ms;             /* 0: 30 s */
    long max_memory_mb;         /* 0: no limit, unless memory_shared */
    bool memory_shared;         /* a child gets 3/4 of what the render's memory budget has free */
    long max_cpu_seconds, max_file_mb, max_procs;
    const char *settings_error; /* a CMP_CHILD_* value that does not parse: the error when a child would run */
} engine_child;

typedef struct engine_ctx {
    arena *a;
    strtab *st;
    /* What an error names: the file of the step's config (or of the object that asked for the engine) and its line,
     * when the node at fault has none. NULL: "functionConfig"; "": no file (the guard). */
    const char *file;
    int line;
    const char *pkg_dir;   /* the package directory of the step ("." outside a package) */
    const char *repo_root; /* the repository (a real path): nothing is read outside it. NULL: pkg_dir's real path */
    engine_helm helm;
    engine_child child;
    const struct limits *lim; /* the operator's limits (util/fsutil.h): a chart's files and bytes, a child's output */
} engine_ctx;

/* An error at node at (NULL: the context's line), naming e->file. Returns -1. */
int engine_fail(const engine_ctx *e, const node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Places an error recorded with fail_here() (util/diag.h) as engine_fail would place it, with the context in front:
 * "<context>: <message>". Returns -1. */
int engine_locate(const engine_ctx *e, const node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The repository root of this run (a real path): e->repo_root, else the package directory's real path. */
const char *engine_repo_root(const engine_ctx *e);

/* path shown relative to the repository root ("." for the root), for messages that must not reveal the sidecar's
 * directories. */
const char *engine_repo_relative(const engine_ctx *e, const char *path);
#endif
