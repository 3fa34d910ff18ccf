/* Name references: when a function renames objects (ensure-name-substring today, a namePrefix-like function
 * tomorrow), the fields that name them elsewhere must follow. This is kustomize's default nameReference table
 * and its rules for picking the object a reference means, plus kpt's config.kubernetes.io/depends-on. */
#ifndef CMP_FUNCTIONS_NAMEREF_H
#define CMP_FUNCTIONS_NAMEREF_H
#include <stdbool.h>
#include <stddef.h>

#include "functions/function.h"

typedef struct nameref_rename {
    resource *r;          /* the renamed object; its tree already carries the new name */
    const char *old_name; /* what references to it say until they are fixed */
    /* how it was renamed ("prefix:prod-"): among several candidates, one renamed like the referrer wins */
    const char *affix;
    size_t order;         /* position in the input, so ties keep kustomize's "first one wins" */
} nameref_rename;

typedef struct nameref_renames {
    nameref_rename *v;
    size_t n, cap;
    bool sorted;
} nameref_renames;

/* Records that r was called old_name before (arena memory, nothing to free). */
void nameref_add(arena *a, nameref_renames *rn, resource *r, const char *old_name, const char *affix);

/* Rewrites every field of the default nameReference table that names a renamed object by its old name. Only
 * renamed objects can be referral targets, so references to anything else stay as they are. Returns -1 (through
 * fn_fail_res) when a reference could mean several objects that now have different names. */
int nameref_fix_references(fn_ctx *c, nameref_renames *rn);

/* Rewrites config.kubernetes.io/depends-on entries (`group/namespaces/ns/Kind/name` or `group/Kind/name`,
 * comma-separated) whose target was renamed. Returns how many annotations changed. */
int nameref_fix_depends_on(fn_ctx *c, nameref_renames *rn);

/* Built-in Kubernetes kinds that live outside namespaces (group "" is core). Unknown kinds count as namespaced,
 * as kyaml does for kinds missing from its schema. */
bool nameref_cluster_scoped(const char *group, const char *kind);
#endif
