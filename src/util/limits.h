/* The operator's limits: made once from the sidecar's environment by src/settings (host_limits_from_env) and handed
 * down in the contexts of a run (load_ctx, fn_host for run_ctx and fn_ctx), never read from a global. A context made
 * by hand (unit tests, fuzz targets) may leave its pointer NULL: limits_or_default then gives the built-in
 * defaults, the values an operator who sets nothing gets (apart from those that follow from the memory budget). */
#ifndef CMP_UTIL_LIMITS_H
#define CMP_UTIL_LIMITS_H
#include <stddef.h>
#include <stdint.h>

/* What the YAML loader (src/yaml/load.h) checks of each text it parses. */
typedef struct load_limits {
    uint32_t max_depth;       /* CMP_MAX_DEPTH: nesting of collections */
    uint64_t max_alias_nodes; /* CMP_MAX_ALIAS_NODES: nodes that alias expansion may copy, per file */
} load_limits;

typedef struct limits {
    size_t max_file_bytes;
    size_t max_total_bytes;
    size_t max_objects;
    size_t max_output_bytes;
    int child_timeout_s; /* CMP_CHILD_TIMEOUT: helm or kustomize is killed after this long */
    size_t max_chart_files; /* CMP_MAX_CHART_FILES: entries in a local chart and its file:// dependencies */
    size_t max_chart_bytes; /* CMP_MAX_CHART_BYTES: bytes of those files */
    size_t max_regex_steps; /* pcre2's match limit per match; the depth limit is a tenth of it */
    size_t max_glob_steps;  /* CMP_MAX_GLOB_STEPS: steps of every path glob match of the run together */
    /* a starlark step's script (src/starlark): steps, MB of memory, nested calls, elements of one value */
    size_t starlark_max_steps, starlark_max_memory_mb, starlark_max_depth, starlark_max_len;
    size_t max_memory_bytes; /* CMP_MAX_MEMORY_MB: the memory budget of the render (util/arena.h); 0: none */
    const char *memory_why;  /* where that budget comes from and how the operator raises it, for its error */
    load_limits yaml;        /* the YAML loader's */
} limits;

/* The built-in defaults (read-only). */
extern const limits limits_default;

static inline const limits *limits_or_default(const limits *L)
{
    return L ? L : &limits_default;
}

/* The loader's part of L (NULL: the defaults), for yaml_load and its kin. */
static inline const load_limits *limits_yaml(const limits *L)
{
    return &limits_or_default(L)->yaml;
}
#endif
