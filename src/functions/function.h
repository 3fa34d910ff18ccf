/* The interface every built-in function implements: one file per function, registered in registry.c. */
#ifndef CMP_FUNCTIONS_FUNCTION_H
#define CMP_FUNCTIONS_FUNCTION_H
#include <stdbool.h>

#include "functions/host.h"
#include "functions/version.h"
#include "package/package.h"
#include "package/resource.h"
#include "yaml/tree.h"

/* SEV_NONE: a result with no severity field, as list-setters reports. SEV_WARN: a warning as the catalog's
 * TypeScript functions word it ("warn", generate-folders). */
enum severity { SEV_INFO, SEV_WARNING, SEV_ERROR, SEV_NONE, SEV_WARN };

typedef struct fn_result {
    enum severity severity;
    const char *message;
    const resource *res; /* may be NULL */
    const char *field;   /* field path, may be NULL */
} fn_result;

typedef struct fn_results {
    fn_result *v;
    size_t n, cap;
    /* Nobody reads them once the step that made them is over (a render without --results-dir): the executor drops
     * each step's results when it ends, so that a result on every object costs nothing at the render's peak, and a
     * function may leave out the text of a message nobody will read (fn_results_read). Within the step they are
     * kept as ever: a function may still look at its own. */
    bool step_only;
} fn_results;

typedef struct fn_ctx {
    arena *a;
    strtab *st;
    rlist *items;            /* what the function sees; it edits in place, may set entries to NULL or append */
    node *config;            /* functionConfig, NULL when the step has none */
    const char *config_file; /* where the config came from, for messages */
    int config_line;
    package *pkg;            /* package whose pipeline runs this step (NULL for `fn` and `eval`) */
    fn_results *results;
    bool validator;
    const fn_host *host;     /* tools, scratch space, the Application: NULL where no tool may run (unit tests) */
    fn_version version;      /* the catalog release the step pins; zero: the newest behaviour */
    bool failure_reported;   /* set by fn_failure_result: the failure's results are the catalog's own */
} fn_ctx;

/* Whether the text of c's results is read after the step (results.yaml): false when they are dropped at its end
 * (step_only) or not kept at all, so that a message made for every object need not be made. */
static inline bool fn_results_read(const fn_ctx *c)
{
    return c->results && !c->results->step_only;
}

typedef int (*fn_run)(fn_ctx *c);
/* Receives a directory a step reads as its source, as a real path (pipeline/sources.h). */
typedef void (*source_dir_fn)(void *ud, const char *dir_real);

/* A built-in function: everything about it lives in its own file (src/functions/catalog/<name>.c, or tools/ for
 * those that run a real tool), in this one definition. The registry is generated from the definitions the build
 * finds there (Makefile: fn_registry.inc), the README's function table from their readme rows (`cmp-generate
 * functions --markdown`, checked by tests/readme), and tests/harness fails a function that no test names. */
typedef struct fn_def {
    const char *name;     /* the catalog basename: "set-labels" */
    const char *summary;  /* one line for --help */
    fn_run run;           /* 0 on success; on failure calls fail() (via fn_fail) and returns -1 */
    /* The catalog's releases, ascending ("0.1.0 0.1.1 0.2.0"), as the registries publish them: a step's tag picks the
     * behaviour of one of these (functions/version.h); NULL when the function has no release of its own, so every tag
     * gets the one behaviour. A tag outside the list gets the newest behaviour and a warning. */
    const char *releases;
    struct {
        const char *does;    /* what it does */
        const char *differs; /* how it differs from the catalog, on purpose */
        const char *versions; /* what each release does */
    } readme;             /* its row of the README's function table (Markdown) */
    /* It edits the values of items only through the setters that replace a shared value node rather than write it
     * (map_set_str*, map_set_shared, set_string_pairs), so shared value nodes may be in its items, and it may add
     * them (node_value_shared: one node for the label it puts on every object). Before any other function runs,
     * the executor gives every item its own copies (node_own_values). */
    bool shares_values;
} fn_def;

/* registry */
const fn_def *fn_lookup(const char *name);
/* "set-labels" from "gcr.io/kpt-fn/set-labels:v0.1.5", "set-labels@sha256:..", "set-labels-v0.1.5", "./bin/set-labels" */
const char *fn_basename(arena *a, const char *ref);
/* The last path component of an image or exec reference without its tag and digest; *tag is the tag (NULL when
 * there is none). The basename is a fresh copy the caller may change. */
char *fn_ref_split(arena *a, const char *ref, const char **tag);
/* An exec: command line mapped to the built-in it stands for: `/path/cmp-generate fn NAME` gives NAME, a wrapper
 * named after a function (`./bin/set-labels`, `set-labels-v0.1.5`, no arguments) gives its own name. Anything else
 * is NULL, recorded with fail_here() ("exec \"<cmd>\" <what is wrong>; ...") for the caller to place (it knows
 * the Kptfile's line: diag_locate). Nothing is ever run. */
const char *fn_exec_ref(arena *a, const char *cmd);
/* Comma-separated names of every built-in, for messages. */
const char *fn_names(arena *a);
const fn_def *const *fn_all(void);

/* The operator's limits for c's step: those its host carries, or the defaults (no host, or a host made by hand). */
static inline const limits *fn_limits(const fn_ctx *c)
{
    return limits_or_default(c->host ? c->host->limits : NULL);
}

/* Does the operator's CMP_SKIP_VALIDATORS list (h->skip_validators: names separated by commas or spaces, or "*")
 * name the validator fn? False without a host. */
bool fn_host_skips_validator(const fn_host *h, const char *fn);

/* helpers for function bodies */
void fn_result_add(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same with a message already made: text and field are kept as they are (no copy, no formatting), so they
 * must live as long as c->a. For a result repeated per item (the same text many times). */
void fn_result_add_text(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *text);
/* For a failure whose result the catalog's release establishes (its wording at the step's version, as its recorded
 * results show): records that result, and marks the failure as reported, so results.yaml carries it instead of
 * the generic error result made from our message. Call it just before fn_fail()ing; stderr keeps our line. The
 * text must hold no secret value, as every message. */
void fn_failure_result(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A config error the catalog's release reports in the very words of our error line: when record is true (the
 * step pins a release whose result is on record), records it as the failure's error result (fn_failure_result),
 * then fails with the same text (fn_fail). Returns -1. */
int fn_fail_recorded(fn_ctx *c, bool record, const node *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A config error: names the config file and line. Returns -1. */
int fn_fail(fn_ctx *c, const node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A config error a callee recorded with fail_here() (a field path, a selector: text that does not know its file),
 * placed as fn_fail would place it, with the formatted context in front of its message: "<context>: <message>".
 * Returns -1. */
int fn_locate(fn_ctx *c, const node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same naming the line of map m's key i (map_key_line: a key node may have no position of its own). */
int fn_fail_key(fn_ctx *c, const node *m, uint32_t i, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A warning (the step goes on) in the error line's form, naming the config file, the line of map m's key i and
 * the step. */
void fn_warn_key(fn_ctx *c, const node *m, uint32_t i, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A resource error: names the resource's file and line. Returns -1. */
int fn_fail_res(fn_ctx *c, const resource *r, const node *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A resource error a callee recorded with fail_here(), placed as fn_fail_res would place it (fn_locate). */
int fn_locate_res(fn_ctx *c, const resource *r, const node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fn_fail_res_key(fn_ctx *c, const resource *r, const node *m, uint32_t i, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The config's kind and apiVersion group checks. */
bool config_is(const node *config, const char *kind, const char *group);
/* A ConfigMap's data (or NULL). */
node *config_data(const node *config);
/* For functions that read no config: none, or a ConfigMap with no data, is fine; anything else is an error naming
 * what would have been ignored (the catalog ignores it, so a setting there never does what its author meant). */
int fn_no_config(fn_ctx *c, const char *fn);
/* Appends a resource the function made to the list (path from kpt's default naming). */
resource *fn_new_resource(fn_ctx *c, node *root, const char *path);
#endif
