/* kpt's attribution: after `kpt fn render` has run every pipeline, it marks each Config Connector object with the
 * annotation cnrm.cloud.google.com/blueprint (kpt-fn, or ",kpt-fn" after what is there), so Google can count what
 * kpt rendered. `kpt fn eval` does not; KPT_DISABLE_ATTRIBUTION (any non-empty value) turns it off. */
#ifndef CMP_PIPELINE_ATTRIBUTION_H
#define CMP_PIPELINE_ATTRIBUTION_H
#include "package/resource.h"

#define ATTRIBUTION_ANNOTATION "cnrm.cloud.google.com/blueprint"

/* The annotation's value after kpt fn render, given the value before it (NULL or "" when absent). */
const char *attribution_value(arena *a, const char *current);
/* Marks every object of items as kpt fn render does: those whose apiVersion contains ".cnrm." and whose metadata
 * is not empty; a value there is rewritten by attribution_value, its quoting kept and its line comment dropped (as
 * kpt's kyaml replaces the node); a new one is single-quoted, as kyaml writes annotations. */
void attribution_apply(arena *a, const rlist *items);
#endif
