/* The render, as data flowing one way: discover, load, run functions, annotate, emit. */
#ifndef CMP_RENDER_RENDER_H
#define CMP_RENDER_RENDER_H
#include <stdbool.h>

#include "util/buf.h"

typedef struct render_opts {
    const char *dir;
    bool json;               /* one compact JSON object per line instead of YAML documents */
    bool keep_config;        /* keep configPath objects in the output */
    bool in_place;           /* kpt fn render parity: write the package back instead of printing for Argo CD */
    const char *results_dir; /* write results.yaml there */
    bool convention;         /* no Kptfile: render a chart, an overlay or a plain directory (implied under Argo CD) */
    int out_fd;              /* >= 0: stream the output there (after checking it fits); else into out */
    bool no_git_metadata;    /* outside Argo CD, do not derive ARGOCD_APP_* from the git repository */
    bool print_env;          /* print the metadata as ARGOCD_APP_* lines instead of the objects */
} render_opts;

/* Renders to o->out_fd or into out (nothing in in-place mode); on failure diag has the message and nothing was
 * written. */
int render(const render_opts *o, buf *out);

typedef struct eval_opts {
    const char *dir;
    const char *fn;          /* function name or image ref */
    const char *fn_config;   /* file holding the functionConfig */
    char **kv;               /* key=value pairs for a function-input ConfigMap */
    int nkv;
    const char *results_dir;
} eval_opts;

/* kpt fn eval parity: one function over the whole tree (subpackages included), written back in place. */
int eval_in_place(const eval_opts *o);

#endif
