/* What the ordering step's files share; private to src/order. */
#ifndef CMP_ORDER_INTERNAL_H
#define CMP_ORDER_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>

typedef struct builtin_kind {
    const char *group, *kind;
    bool cluster; /* cluster-scoped */
} builtin_kind;

/* builtin_kinds.c, generated from the Kubernetes API's discovery documents: sorted by group, then kind (strcmp). */
extern const builtin_kind builtin_kinds[];
extern const size_t builtin_kind_count;
const builtin_kind *builtin_kind_find(const char *group, const char *kind);

/* Can Argo CD assess this kind's health (so that the next wave waits for it)? extra: CMP_GENERATE_HEALTH_KINDS. */
bool health_known(const char *group, const char *kind, const char *extra);

/* The kind's rank in cli-utils' apply order within one set (pkg/ordering/sort.go): the listed kinds first, in
 * their order; every other kind after them; ValidatingWebhookConfiguration last. */
int kind_rank(const char *kind);
#endif
