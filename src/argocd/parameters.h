#ifndef CMP_ARGOCD_PARAMETERS_H
#define CMP_ARGOCD_PARAMETERS_H
#include "util/buf.h"

/* Always fills out with a JSON array; returns -1 (diag set) when the package could not be read. */
int print_parameters(const char *dir, buf *out);
#endif
