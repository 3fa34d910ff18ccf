/* Fills the functions' view of the sidecar (functions/host.h) from the environment, once per run. */
#ifndef CMP_ARGOCD_HOST_H
#define CMP_ARGOCD_HOST_H
#include "functions/host.h"

#include "util/arena.h"

void host_from_env(fn_host *h);
/* The children block of fn_host alone (host_from_env calls it). */
void host_children_from_env(fn_host *h);
/* Sets h->repo_root for the package in dir (see functions/host.h); NULL when dir does not resolve. */
void host_find_repo_root(arena *a, fn_host *h, const char *dir);
#endif
