/* The independent YAML 1.1 reader the emitter tests check against: libyaml, like Go's yaml behind Argo CD. */
#ifndef CMP_TEST_LIBYAML_READER_H
#define CMP_TEST_LIBYAML_READER_H
#include <yaml.h>

#include "util/arena.h"

/* Every scalar of the first document of text, in order, as libyaml reads them (copies in a); -1 when libyaml
 * refuses the text. At most max are kept. */
int libyaml_scalars(arena *a, const char *text, const char **out, int max);
#endif
