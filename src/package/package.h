/* The package tree: the directory holding a Kptfile, its resources read by kpt's rules, and its subpackages. */
#ifndef CMP_PACKAGE_PACKAGE_H
#define CMP_PACKAGE_PACKAGE_H
#include <stdbool.h>

#include "package/krmignore.h"
#include "package/resource.h"
#include "yaml/load.h"

typedef struct package {
    const char *abs;  /* filesystem path of the package directory */
    const char *rel;  /* relative to the root package, "" for the root */
    struct package *parent;
    struct package **subs;
    size_t nsubs;
    resource *kptfile; /* NULL only in descriptor-less mode */
    rlist own;         /* own resources, in kpt's reading order (Kptfile included) */
    krmignore *ignore;
    bool sources_known; /* pipeline/sources.c has taken the directories its steps read as sources */
} package;

/* A document that is not a Kubernetes object. It is an error unless the pipeline uses its file as something else
 * (a Helm values file), which only the Kptfile can tell, after reading: see settle_non_krm. */
typedef struct non_krm {
    struct package *pkg;
    const char *path, *display, *missing;
    const char *why_read; /* NULL, or why its directory was read (see load_ctx.reading) */
    int line;
} non_krm;

/* A directory holding a Helm chart (Chart.yaml) or a Kustomize overlay (a kustomization), found while reading and
 * not read yet: whether a pipeline step reads it as its source is known only once the tree's Kptfiles are read. */
typedef struct pending_dir {
    struct package *pkg;
    const char *abs, *rel; /* rel: relative to pkg */
    bool chart;            /* Chart.yaml (else a kustomization) */
} pending_dir;

struct load_ctx;
/* Is dir_real (a real path) a directory a pipeline step of the tree under root reads as its source (a local chart,
 * an overlay and what it reaches)? 1 yes, 0 no, -1 an error (recorded). */
typedef int (*step_source_fn)(struct load_ctx *c, struct package *root, const char *dir_real);

typedef struct load_ctx {
    arena *a;
    strtab *st;
    const limits *limits;  /* the operator's (max-file-bytes, max-objects, the loader's...); NULL: the defaults */
    const char *root_real; /* realpath of the root package: nothing is read from outside it */
    non_krm *non_krm;
    size_t n_non_krm;
    bool defer_non_krm;
    /* Real paths of values files the Application names (helm-value-files): never an error as non-objects. */
    const char *const *values_files;
    /* A plain directory of manifests (no Kptfile): read the way Argo CD's directory source reads one, so files
     * holding its skip-file-rendering marker are left out and Jsonnet is refused. */
    bool directory_source;
    /* Keep a List (kind List or a typed list) as one resource flagged R_LIST instead of splitting it into its
     * items: a List may be a function's config (configPath), and kpt's in-place modes write files back whole.
     * The render splits the others before the pipeline (pipeline/executor.c hydrate). */
    bool keep_lists;
    /* Which chart and overlay directories are a step's source (pipeline/sources.h): those are left to the step,
     * every other one is read as kpt reads it, file by file. NULL: no step reads any (kpt's reading). */
    step_source_fn step_source;
    void *step_source_ud;
    /* The reader's own: directories waiting for that answer, packages read so far (a new one may bring steps that
     * name a directory), and while a chart or overlay directory is read as resources, why (for its errors). */
    pending_dir *pending;
    size_t npending, packages;
    const char *reading;
} load_ctx;

/* Discovers the package tree at dir and reads every resource. require_kptfile: a missing Kptfile is an error. */
int package_load(load_ctx *c, const char *dir, bool require_kptfile, package **out);
void package_free(package *p);
/* A directory holding a Helm chart (Chart.yaml) or a Kustomize overlay (a kustomization file). */
bool is_source_dir(arena *a, const char *dir);

/* Reads one file of resources into list (kpt rules: KRM check, empty documents dropped). Used by the reader and
 * by sources that bring their own YAML (helm, kustomize). display names the file in errors. */
int load_resources_from_text(load_ctx *c, package *pkg, const char *path, const char *display, const char *data,
                             size_t len, rlist *list);
/* The same for text that arrives in pieces (a tool's output, fed while the tool writes it): the objects go into
 * list, and count against max-objects, document by document as they complete. */
yaml_stream *load_resources_stream(load_ctx *c, package *pkg, const char *path, const char *display, rlist *list);
#endif
