/* kpt's apply order as Argo CD sync waves (issue #28): the step after the functions and before the Argo CD stamps
 * and the emit, on exactly the objects that will be printed. kpt live apply orders a package by
 * config.kubernetes.io/depends-on and the implicit CRD -> custom resource and Namespace -> namespaced object edges,
 * applying it layer by layer (cli-utils' layered topological sort); Argo CD ignores that annotation and orders by
 * phase, sync wave and kind. This module builds the graph as kpt builds it, refuses what kpt's apply refuses, and
 * writes each layer as argocd.argoproj.io/sync-wave, phase by phase. */
#ifndef CMP_ORDER_ORDER_H
#define CMP_ORDER_ORDER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "package/resource.h"

#define ORDER_DEPENDS_ON "config.kubernetes.io/depends-on"
#define ORDER_MUTATION "config.kubernetes.io/apply-time-mutation"

typedef struct order_opts {
    /* the ordering parameter: "auto" (or NULL: translate when an object carries depends-on or apply-time-mutation),
     * "kpt" (always, implicit edges alone included) or "off" */
    const char *mode;
    /* the namespace a namespaced object without one has, for the graph only (kpt's inventory namespace; Argo CD's
     * destination, ARGOCD_APP_NAMESPACE); NULL: "default" */
    const char *default_namespace;
    /* Argo CD's KUBE_API_VERSIONS (group/version and group/version/Kind entries, comma-separated); NULL: unknown,
     * and every custom resource whose CRD is not in the output is taken as missing from the cluster */
    const char *kube_api_versions;
    /* CMP_GENERATE_HEALTH_KINDS: group/Kind entries the operator gave Argo CD health checks for (Lua) */
    const char *health_kinds;
} order_opts;

/* Validates the mode parameter: NULL when it is one of auto, kpt, off. */
const char *order_mode_rule(const char *mode);

/* Translates in place: every object of the PreSync, Sync, PostSync and SyncFail phases gets its wave, custom
 * resources whose type the cluster lacks get SkipDryRunOnMissingResource=true, and the list is put in apply order.
 * With nothing to translate the list is left exactly as it is. -1 with fail() (one line naming the object and the
 * rule) on anything kpt's apply would abort on; warnings through diag_warn. */
int order_apply(arena *a, rlist *items, const order_opts *o);

/* Does this object ask for ordering (depends-on or apply-time-mutation)? */
bool order_wanted(const resource *r);

/* The layered topological sort of cli-utils' Graph.Sort, for n nodes and m edges (edge i: from[i] depends on
 * to[i]): layer[v] is 0 for a node with no dependencies, else one more than the highest layer among its
 * dependencies, except that a node marked in zero_weight (may be NULL) takes the highest layer of its dependencies
 * itself (a barrier standing for a whole explicit wave, which must not cost a wave of its own). O(n + m).
 * Returns 0, or -1 when the graph has a cycle: *cycle (xmalloc'd, for xfree) then holds the nodes of one cycle in
 * edge order (cycle[0] depends on cycle[1] ... cycle[len-1] depends on cycle[0]); a self-edge is a cycle of one. */
int order_layers(size_t n, size_t m, const uint32_t *from, const uint32_t *to, const uint8_t *zero_weight,
                 uint32_t *layer, uint32_t **cycle, size_t *cycle_len);
#endif
