/* The helm-parameters Application parameter: Argo CD's spec.source.helm.parameters, as a map from a value path in
 * helm's --set syntax ("image.tag", "ingress.hosts[0].name", "podAnnotations.prometheus\.io/scrape") to a value.
 * It is turned into one YAML values document that reaches helm as a values file, never as --set flags: a key or a
 * value then cannot be read as another option, another assignment ("a,b=c") or helm's list syntax ("{a,b}").
 * Every value is a string, as with Argo CD's forceString (helm's --set-string): what the Application says is what
 * the chart gets, with no guessing of booleans, numbers or null; typed values go in helm-values. */
#ifndef CMP_ARGOCD_HELM_PARAMETERS_H
#define CMP_ARGOCD_HELM_PARAMETERS_H
#include "yaml/tree.h"

/* params: a map of strings (NULL: none). *yaml: the values document, or NULL when the map is empty. -1 with fail()
 * naming the parameter and the key when a key is not a value path helm would accept. */
int helm_parameters_yaml(arena *a, const node *params, const char **yaml);
#endif
