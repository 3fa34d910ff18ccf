/* kpt's selector rules: exact apiVersion/kind/name/namespace, subset labels and annotations; OR across selectors. */
#ifndef CMP_PIPELINE_SELECTOR_H
#define CMP_PIPELINE_SELECTOR_H
#include <stdbool.h>

#include "pipeline/kptfile.h"

bool selector_matches(const selector *s, const resource *r);
/* Selected by the step: matches any selector (or there are none) and no non-empty exclusion. */
bool step_selects(const step *s, const resource *r);
#endif
