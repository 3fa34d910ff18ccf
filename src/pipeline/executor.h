/* Runs the Kptfile pipelines over the package tree, depth-first: each package sees its own resources followed by
 * its subpackages' rendered resources. */
#ifndef CMP_PIPELINE_EXECUTOR_H
#define CMP_PIPELINE_EXECUTOR_H
#include "functions/function.h"
#include "package/package.h"
#include "pipeline/kptfile.h"

/* What one executed step reported, for --results-dir. */
typedef struct step_report {
    const char *ref; /* image or exec as written */
    bool exec;
    int exit_code;
    size_t first, count; /* its slice of run_ctx.results */
    bool failure_reported; /* a failed step whose slice holds the catalog's own results for the failure */
} step_report;

typedef struct run_ctx {
    arena *a;
    strtab *st;
    fn_results results;
    step_report *reports;
    size_t nreports;
    const node *setter_overrides; /* map: values that replace apply-setters config values */
    /* NULL: setter_overrides' keys are setter names; else the key a setter name has there (Argo CD's escaping of
     * PARAM_SETTERS_<KEY>, given by the caller so that the pipeline knows nothing of parameters) */
    char *(*setter_key)(arena *a, const char *prefix, const char *name);
    bool *setter_used;
    const fn_host *host; /* handed to every step */
    bool flatten_lists;  /* split R_LIST resources into their items, except a step's configPath (not in place) */
    bool attribution;    /* render: kpt fn render's attribution annotation once the pipelines ran (attribution.h) */
    /* a step whose function shares values (fn_def.shares_values) ran: a step of any other function first gives its
     * items their own copies (node_own_values) */
    bool shared_values;
} run_ctx;

void run_ctx_free(run_ctx *R);

/* Renders p and its subpackages; out receives the rendered resources in kpt's order. */
int hydrate(run_ctx *R, package *p, rlist *out);
/* Runs one step over items (selection, config, merge back). */
int run_step(run_ctx *R, package *p, const step *s, rlist *items);
#endif
