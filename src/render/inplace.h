/* kpt fn render's default output: every resource written back into its file, files left empty deleted. */
#ifndef CMP_RENDER_INPLACE_H
#define CMP_RENDER_INPLACE_H
#include <stdbool.h>

#include "package/package.h"

/* What every file of the package would be written as before the pipeline runs (a digest per file), so that
 * write_in_place leaves alone, bytes and time, the files no function changed. */
typedef struct inplace_before inplace_before;
inplace_before *inplace_remember(arena *a, package *root);

/* before: inplace_remember's, or NULL to write every file. (kpt fn render's attribution annotation is the render's,
 * pipeline/attribution.h, added before this.) */
int write_in_place(arena *a, package *root, const rlist *items, const inplace_before *before);
#endif
