/* One time budget (the `timeout` parameter) for init and render together, as Argo CD runs them: plugin.yaml's init
 * then generate, in the same request, in the same copy of the repository, under one gRPC deadline (60 s by
 * default). When the budget runs out, everything we started is killed, scratch is removed, one line goes to stderr
 * and we exit 1. Used by render/ and by cmd/init.c, which arms it. */
#ifndef CMP_RENDER_DEADLINE_H
#define CMP_RENDER_DEADLINE_H
#include <stdbool.h>

/* init: under Argo CD (argocd), records in dir when init started; arms the deadline for the whole budget. -1 with
 * fail() when the record cannot be written. */
int deadline_start_init(const char *dir, int budget_s, bool argocd);
/* init failed: render will not run, so the record goes. */
void deadline_forget_init(const char *dir);
/* render: arms the deadline for what init left of the budget (all of it when no init ran), after removing init's
 * record from dir. -1 with fail() when init used it all. */
int deadline_start_render(const char *dir, int budget_s, bool argocd);
#endif
