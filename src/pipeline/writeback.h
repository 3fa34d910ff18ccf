/* What kpt's writer does to every object it writes (kpt fn render and kpt fn eval, in place or to stdout),
 * whatever the functions did: once it has taken its own bookkeeping annotations off, an annotations map left empty
 * (or one that was empty or null in the file) goes (kyaml's ClearEmptyAnnotations). */
#ifndef CMP_PIPELINE_WRITEBACK_H
#define CMP_PIPELINE_WRITEBACK_H
#include "package/resource.h"

/* Deletes metadata.annotations from every object of items where it is an empty map or null. */
void writeback_clear_empty_annotations(const rlist *items);
#endif
