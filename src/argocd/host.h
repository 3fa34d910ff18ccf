/* Fills the functions' view of the sidecar (functions/host.h) from the environment, once per run. */
#ifndef CMP_ARGOCD_HOST_H
#define CMP_ARGOCD_HOST_H
#include "functions/host.h"

void host_from_env(fn_host *h);
#endif
