/* kpt's write-back of every object (pipeline/writeback.h). kpt puts its path and index annotations on every object
 * it reads and clears them when it writes, dropping the annotations map when that leaves it empty; so a file's
 * "annotations: {}" (or "annotations:" with nothing) does not survive kpt fn render, even with no pipeline, and an
 * object whose last annotation a function deleted loses the map. Measured against kpt 1.0.0-beta.56
 * (tests/kpt-compare). metadata itself stays: every object here has a name or generateName. */
#include "pipeline/writeback.h"

void writeback_clear_empty_annotations(const rlist *items)
{
    for (size_t i = 0; i < items->n; i++) {
        node *md = items->v[i] ? map_get(items->v[i]->root, "metadata") : NULL;
        node *ann = is_map(md) ? map_get(md, "annotations") : NULL;
        if (ann && ((is_map(ann) && !node_len(ann)) || is_null(ann)))
            map_delete(md, "annotations");
    }
}
