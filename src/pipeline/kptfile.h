/* The Kptfile's pipeline, read and checked before any step runs. */
#ifndef CMP_PIPELINE_KPTFILE_H
#define CMP_PIPELINE_KPTFILE_H
#include <stdbool.h>

#include "functions/function.h"
#include "package/package.h"

typedef struct selector {
    const char *api_version, *kind, *name, *namespace;
    const node *labels, *annotations;
} selector;

typedef struct step {
    const char *ref;         /* image or exec as written */
    bool is_exec;
    const fn_def *fn;
    fn_version version;      /* from the image tag, the exec name or `tag:` */
    const char *version_warning; /* the version could not be placed: a warning (diag_warn) when the step runs */
    const char *config_path; /* package-relative, checked */
    /* The copies of the configPath object, shared by every step of the package that names its file. */
    struct config_copies *config_copies;
    const node *config_map;
    selector *selectors;
    size_t nselectors;
    selector *excludes;
    size_t nexcludes;
    bool validator;
    const char *label; /* "pipeline.mutators[0] (set-labels)", for messages */
    const char *origin; /* the file messages name for the step itself; NULL: the package's Kptfile */
    uint32_t line;
    /* A validator whose function is not built in (fn is then a stand-in that runs nothing): its name, and the error
     * the render gives unless the operator's CMP_SKIP_VALIDATORS names it (pipeline/executor.c); NULL otherwise.
     * Mutators that are not built in stay errors of kptfile_pipeline itself. */
    const char *missing;
    const char *missing_file, *missing_error;
} step;

/* One per configPath object, however many steps name it: memory stays one object's, not steps x object. */
typedef struct config_copies {
    /* The object as the package's file holds it, taken before any step of the package ran: kpt reads the file when
     * it builds the pipeline and falls back to that copy when an earlier step removed the object. */
    const node *as_read;
    /* The copy the last step naming the object was handed; the next one gets it again, brought up to date with
     * the object (node_refresh_copy), so memory grows with the object's edits, not with the steps. */
    node *last;
} config_copies;

typedef struct pipeline {
    step *steps;
    size_t n;
} pipeline;

int kptfile_pipeline(arena *a, package *p, pipeline *out);
/* The Kptfile k's apiVersion, kind and kpt's schema (unknown fields refused), as kptfile_pipeline checks them first;
 * file names it in errors. serve-params reads Kptfiles alone with it. */
int kptfile_check(const char *file, const node *k);
/* Turns a configMap: into the ConfigMap kpt synthesizes (named function-input, every value a string). */
node *synthesize_config_map(arena *a, const node *data);
/* Documents that are not Kubernetes objects are errors, except in files a render-helm-chart step of the same
 * package names as values files. Frees the deferred list. */
int settle_non_krm(load_ctx *lc);
#endif
