/* Fills the functions' view of the sidecar (functions/host.h) from the environment, once per run. */
#ifndef CMP_ARGOCD_HOST_H
#define CMP_ARGOCD_HOST_H
#include "argocd/settings.h"
#include "functions/host.h"

#include "util/arena.h"

void host_from_env(fn_host *h);
/* The children block of fn_host alone (host_from_env calls it). */
void host_children_from_env(fn_host *h);
/* Sets h->repo_root for the package in dir (see functions/host.h); NULL when dir does not resolve. */
void host_find_repo_root(arena *a, fn_host *h, const char *dir);
/* Hands the Application's Helm parameters (helm-value-files, helm-parameters, helm-release-name, the switches) to
 * the functions, after host_find_repo_root: each value file is resolved inside the repository here, before any
 * step runs (-1 with fail() naming the parameter and the file). */
int host_helm_parameters(arena *a, fn_host *h, const settings *s);
#endif
