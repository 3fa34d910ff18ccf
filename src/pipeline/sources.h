/* Which chart and overlay directories of a package tree a pipeline step reads as its source. kpt reads every YAML
 * file of a package, whatever directory holds it; a directory is left out of the resources only because a step
 * of the tree (render-helm-chart, kustomize-build) renders it, so nothing is ever left out without a step that
 * brings it back. */
#ifndef CMP_PIPELINE_SOURCES_H
#define CMP_PIPELINE_SOURCES_H
#include "functions/function.h"
#include "package/package.h"

typedef struct step_sources {
    const fn_host *host; /* the steps' host: where the repository is (a chart may be anywhere in it) */
    size_t packages;     /* the tree's package count when dirs was made: a new package may bring more steps */
    bool ready;
    char **dirs;         /* real paths */
    size_t n;
} step_sources;

/* load_ctx.step_source, with load_ctx.step_source_ud a step_sources: 1 when a step of the tree under root reads
 * dir_real (a real path) as its source. A step whose config cannot be read names nothing (it fails when it runs). */
int step_source(load_ctx *c, package *root, const char *dir_real);
void step_sources_free(step_sources *s);
#endif
