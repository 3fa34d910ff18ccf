/* Parameters that change the rendered objects: setters before the pipeline, then namespace, labels, annotations
 * and images as final steps, run through the same built-in functions a Kptfile would use. */
#ifndef CMP_ARGOCD_OVERRIDES_H
#define CMP_ARGOCD_OVERRIDES_H
#include "settings/settings.h"
#include "pipeline/executor.h"

int apply_final_steps(run_ctx *R, package *root, rlist *items, const settings *s);
/* After the pipeline: every overridden setter must have been found in an apply-setters config. */
int check_setters_used(const run_ctx *R);
/* Splits "name=newName:newTag", "name=newName@digest", "name:newTag" or "name@digest" into a set-image config. */
int parse_image_override(arena *a, const char *spec, node **data);
#endif
