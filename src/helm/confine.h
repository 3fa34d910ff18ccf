/* What helm will read of a chart, checked before helm runs: the package author wrote the chart, so a symlink, a
 * file:// dependency or a JSON-schema $ref must not make helm read outside the repository or fetch a URL nobody
 * declared. */
#ifndef CMP_FUNCTIONS_HELM_CONFINE_H
#define CMP_FUNCTIONS_HELM_CONFINE_H
#include "engine/engine.h"
#include "util/limits.h"

/* The local chart at chart_dir (a real path inside the repository): every entry under it, through symlinks (which
 * must resolve inside the repository), the charts its file:// dependencies name (Chart.yaml, requirements.yaml and
 * their lock files; each must resolve inside the repository and is checked the same way), the archives it holds,
 * and every values.schema.json among them (its "$ref"s must stay inside the schema: helm fetches URLs and reads
 * files they name). Counted against max_chart_files and max_chart_bytes. 0, or -1 with engine_fail naming the chart,
 * the file and the rule. */
int helm_confine_dir(const engine_ctx *c, const node *at, const char *chart_dir);

/* The chart directory chart_dir (a real path) and the chart directories its file:// dependencies name, through
 * theirs (each once), given to add() as real paths: the directories a render of the chart reads. Best effort: a
 * file that cannot be read ends the list there (the render's helm_confine_dir reports it). */
void helm_chart_dirs(const engine_ctx *c, const char *chart_dir, void (*add)(void *ud, const char *dir_real), void *ud);

/* A chart archive helm pulled from a chart repository (shown as name in messages): the same checks on its
 * contents. */
int helm_confine_archive(const engine_ctx *c, const node *at, const char *tgz, const char *name);

/* helm_confine_dir for the kustomize helm guard (kustomize/helm_guard.c), which runs as its own process with no
 * step: the chart at chart_dir (a real path) under root, within lim (the operator's limits the guard was started
 * with; NULL: the defaults). 0, or -1 with the reason recorded by fail(): "<file>:<line>: <message>" when a file is
 * at fault, else the message alone. */
int helm_confine_guard(const char *root, const char *chart_dir, const limits *lim);
#endif
