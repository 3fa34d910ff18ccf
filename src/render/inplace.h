/* kpt fn render's default output: every resource written back into its file, files left empty deleted. */
#ifndef CMP_RENDER_INPLACE_H
#define CMP_RENDER_INPLACE_H
#include <stdbool.h>

#include "package/package.h"

/* attribution: add cnrm.cloud.google.com/blueprint: 'kpt-fn' to Config Connector objects, as kpt render does. */
int write_in_place(arena *a, package *root, const rlist *items, bool attribution);
#endif
