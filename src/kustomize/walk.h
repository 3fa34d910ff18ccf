/* Reading a package's kustomizations before kustomize does. kustomize follows paths wherever they lead (a
 * directory base may be anywhere on disk, a symlink anywhere, any field may be an http:// or git URL), so the
 * kustomization graph is walked first: every path field of every kustomization it reaches (resources, bases,
 * components, patches, generator files and envs, replacements, openapi, configurations, crds, generator and
 * transformer configs, helm charts and values) must resolve, symlinks followed, inside the repository root; URLs
 * need the operator's consent; helm fields must be values helm accepts. kustomize then runs on what was checked. */
#ifndef CMP_FUNCTIONS_KUSTOMIZATION_WALK_H
#define CMP_FUNCTIONS_KUSTOMIZATION_WALK_H
#include <stdbool.h>

#include "util/arena.h"
#include "util/limits.h"
#include "yaml/tree.h"

typedef struct kust_policy {
    const char *root;     /* the repository root (realpath): nothing may resolve outside it */
    const char *from;     /* the package directory (realpath): messages name files relative to it */
    const char *helm_off; /* NULL when helm may run; else why not, completing "helm charts need helm, ..." */
    bool remote;          /* URLs are allowed (the operator's CMP_ALLOW_REMOTE_SOURCES=true) */
    /* When set, told every directory the walk reaches (a real path): the kustomization directories, the directories
     * of generator configs, and the local charts helm would render. */
    void (*reached)(void *ud, const char *dir_real);
    void *reached_ud;
    const limits *limits; /* the operator's (max-file-bytes, the loader's...); NULL: the defaults */
} kust_policy;

/* Checks the kustomization in dir (a realpath) and everything it references. 0, or -1 with fail() naming the
 * file and line, the field and the rule. */
int kustomization_check(arena *a, strtab *st, const kust_policy *p, const char *dir);

/* How kustomize would read a path field: LOCAL, a URL it fetches (REMOTE: http(s), ssh, git, github.com/...), or a
 * file:// URL (a local read outside the repository that git would do for it). */
enum kust_ref { KUST_LOCAL, KUST_REMOTE, KUST_REMOTE_FILE };
enum kust_ref kust_ref_kind(const char *v);
#endif
