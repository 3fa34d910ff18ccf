/* The rules Kubernetes and container registries apply to what the labels, annotations, annotation-domain and images
 * parameters write into every object. These parameters are ours, not a kpt function's, so we check them at render
 * time: a bad key then fails the render with a message naming the parameter and the key, instead of an Application
 * that renders and a sync the API server refuses far from the cause. (The kpt functions' own configs in a Kptfile
 * are not checked here: they accept what the catalog accepts.)
 *
 * Each *_rule returns NULL when the text is valid, else the rule it breaks, as a static phrase for a message. */
#ifndef CMP_ARGOCD_VALUE_RULES_H
#define CMP_ARGOCD_VALUE_RULES_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

/* Kubernetes' IsDNS1123Subdomain: at most 253 characters; dot-separated parts of lower-case letters, digits and
 * '-', each starting and ending with a letter or digit. */
const char *dns_subdomain_rule(const char *s);

/* Kubernetes' IsQualifiedName, the rule for label and annotation keys: an optional DNS subdomain prefix and '/',
 * then a name of at most 63 characters, [A-Za-z0-9] at both ends and [-A-Za-z0-9_.] inside. Annotation keys are
 * checked as Kubernetes does, lower-cased first (so their prefix may hold upper case). */
const char *qualified_name_rule(const char *key, bool annotation);

/* Kubernetes' IsValidLabelValue: empty, or a name as above (at most 63 characters). */
const char *label_value_rule(const char *value);

/* Kubernetes' TotalAnnotationSizeLimitB: the keys and values of an object's annotations, 256 KiB in all. */
#define ANNOTATIONS_MAX_BYTES ((size_t)256 * 1024)

/* One entry of the images parameter, split as Argo CD splits it for kustomize (`kustomize edit set image`):
 * "name=newName[:newTag][@digest]", "name:newTag[@digest]" or "name@digest". A tag is the text after the last ':'
 * that follows the last '/' (so a registry port stays in the name), a digest the text after the first '@'. "*" as
 * newName, newTag or digest means "leave it as it is", as kustomize reads it. Empty fields are "" (never NULL). */
typedef struct image_override {
    const char *name;     /* the image to change: a reference, with a tag or digest only in the "=" form */
    const char *new_name; /* "" when the name stays */
    const char *new_tag;
    const char *digest;
} image_override;

/* Splits spec and checks every part against the distribution reference grammar: a name of lower-case path
 * components ([a-z0-9]+ joined by '.', '_', '__' or '-'s) separated by '/', optionally after a registry
 * host[:port]/, at most 255 characters; a tag [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}; a digest algorithm:hex (32 hex
 * digits or more). NULL when valid, else the rule broken, with the offending part (cut with shown()). */
const char *image_override_split(arena *a, const char *spec, image_override *out);
#endif
