/* Kubernetes label selector strings ("app=web,tier!=db,env in (a,b),!legacy,release"), as kustomize's
 * labelSelector and annotationSelector take them; the same syntax is matched against labels or annotations. */
#ifndef CMP_FUNCTIONS_LABEL_SELECTOR_H
#define CMP_FUNCTIONS_LABEL_SELECTOR_H
#include <stdbool.h>

#include "util/arena.h"
#include "yaml/tree.h"

typedef struct label_selector label_selector;

/* NULL on a syntax error, recorded with fail_here() (the caller knows the file and line: diag_locate). An empty or
 * blank string selects everything. */
label_selector *label_selector_parse(arena *a, const char *text);

/* map: the labels (or annotations) mapping; NULL or a non-map counts as empty. */
bool label_selector_matches(const label_selector *s, const node *map);
#endif
