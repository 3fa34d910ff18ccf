/* What a scalar means to the readers that see our output: YAML 1.2 (kyaml, kpt) and YAML 1.1 (Go's
 * goyaml.v2 behind sigs.k8s.io/yaml, which Argo CD uses). */
#ifndef CMP_YAML_SCALAR_H
#define CMP_YAML_SCALAR_H
#include <stdbool.h>
#include <stddef.h>

#include "yaml/tree.h"

enum scalar_type { T_STR, T_NULL, T_BOOL, T_INT, T_FLOAT };

/* How a plain scalar with this text resolves. */
enum scalar_type resolve_yaml11(const char *s, size_t n);
enum scalar_type resolve_yaml12(const char *s, size_t n);
/* The type of a node as kpt sees it: quoted and !!str-tagged scalars are strings. */
enum scalar_type node_type(const node *n);
/* What the emitter needs to know about a text, found in one pass and kept while the text is unchanged: for a
 * caller outside src/yaml an opaque value to hand to map_set_str_ref_facts and node_key_shared, so that a pair set
 * on every object is examined once (src/yaml/scalar_text.h names the bits). */
unsigned scalar_facts(const char *s, size_t n);
#endif
