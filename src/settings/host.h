/* Fills the functions' view of the sidecar (functions/host.h) from the environment, once per run. */
#ifndef CMP_ARGOCD_HOST_H
#define CMP_ARGOCD_HOST_H
#include "settings/settings.h"
#include "settings/app_meta.h"
#include "functions/host.h"
#include "git/git.h"

#include "util/arena.h"

/* Reads CMP_MAX_FILE_BYTES and every other CMP_* number from the environment into the operator's limits. A value
 * that breaks its rule is an error (-1 with fail(): the variable, the rule and the value; the limits stay as they
 * were), never silently replaced by the default; an empty value counts as unset. */
int host_limits_from_env(void);
/* The operator's limits as host_limits_from_env made them (the defaults until it succeeds), for
 * the commands to hand down in the contexts of a run (host_from_env puts them in fn_host.limits); read-only. */
const limits *host_limits(void);
/* ARGOCD_APP_* from the environment; unset (or empty) variables stay NULL. Each must be printable UTF-8 text
 * (meta_value_check); the repository URL loses its credentials (url_strip_credentials). fail() and -1 otherwise. */
int host_app_meta(arena *a, app_meta *m);
/* GIT_CEILING_DIRECTORIES, XDG_CACHE_HOME and TMPDIR for git (empty counts as unset). */
void host_git_env(gitsrc_env *g);

void host_from_env(fn_host *h);
/* The children block of fn_host alone (host_from_env calls it). */
void host_children_from_env(fn_host *h);
/* The memory limit (bytes) in a cgroup file: v2 memory.max or v1 memory.limit_in_bytes. 0 when the file says there
 * is none ("max", v1's huge number); -1 when it cannot be read or holds anything else (no error recorded). */
long long host_cgroup_memory_limit(const char *path);
/* The render's memory budget (util/arena.h) in bytes: explicit_mb when the operator set CMP_MAX_MEMORY_MB (> 0), else
 * 3/4 of the container's memory limit (read from v2_path, else from v1_path, as host_cgroup_memory_limit reads
 * them), else, when no limit is visible, MEMORY_DEFAULT_MB: 3/4 of the 256Mi the shipped Components give the
 * sidecar. At least 1 MB. why (cap bytes) says where it came from and how the operator raises it, for the
 * budget's error. host_limits_from_env passes the real paths. */
#define MEMORY_DEFAULT_MB 192UL
size_t host_memory_budget(unsigned long long explicit_mb, const char *v2_path, const char *v1_path, char *why,
                          size_t cap);
/* The input limits' defaults follow from the budget: the worst shape measured (tests/bench/memory) counts at most
 * MEMORY_PER_INPUT_BYTE bytes of budget per input byte, so CMP_MAX_TOTAL_BYTES defaults to the budget divided by
 * that (and CMP_MAX_FILE_BYTES to that or 64 MiB, the smaller). */
#define MEMORY_PER_INPUT_BYTE 32
size_t host_total_bytes_default(size_t budget);
/* Sets h->repo_root for the package in dir (see functions/host.h); NULL when dir does not resolve. */
void host_find_repo_root(arena *a, fn_host *h, const char *dir);
/* Hands the Application's Helm parameters (helm-value-files, helm-parameters, helm-release-name, the switches) to
 * the functions, after host_find_repo_root: each value file is resolved inside the repository here, before any
 * step runs (-1 with fail() naming the parameter and the file). */
int host_helm_parameters(arena *a, fn_host *h, const settings *s);
#endif
