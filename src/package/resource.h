/* A resource is one KRM object of a package: its tree plus where it came from. Lists of resources are what
 * pipeline steps see and edit. */
#ifndef CMP_PACKAGE_RESOURCE_H
#define CMP_PACKAGE_RESOURCE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "yaml/tree.h"

struct package;

enum resource_flags {
    R_CONFIG = 1,      /* named by a pipeline step's configPath */
    R_SELECTED = 2,    /* scratch mark used while merging a step's output back */
    R_KUSTOMIZE = 4,   /* a kustomization file: exempt from the KRM check, never applied */
    R_SURVIVED = 8,    /* scratch mark: still in a step's output */
    R_LIST = 16,       /* a List kept whole at load (load_ctx.keep_lists): its items were checked, not split out */
};

typedef struct resource {
    node *root;
    struct package *pkg; /* owning package; NULL for objects a function made outside any package */
    const char *path;    /* file, relative to its package directory, '/'-separated */
    uint32_t index;      /* document index within the file */
    uint32_t serial;     /* unique per render */
    uint32_t line;       /* first line of the document */
    uint8_t seq_wide;
    uint8_t flags;
} resource;

typedef struct rlist {
    resource **v;
    size_t n, cap;
} rlist;

void rlist_push(rlist *l, resource *r);
void rlist_free(rlist *l);
/* Drops NULL entries left by functions that delete items, keeping order. */
void rlist_compact(rlist *l);

resource *resource_new(arena *a, node *root, struct package *pkg, const char *path, uint32_t index);

const char *res_api_version(const resource *r);
const char *res_kind(const resource *r);
const char *res_name(const resource *r);
const char *res_namespace(const resource *r);
const char *res_annotation(const resource *r, const char *key);
const char *res_label(const resource *r, const char *key);
/* The group part of apiVersion ("" for core). Writes into out. */
void res_group(const resource *r, char *out, size_t outlen);
/* "Kind/name" or "Kind/namespace/name", for messages. */
const char *res_id(arena *a, const resource *r);
/* The file as it is named in messages: package dir joined with path. */
const char *res_file(arena *a, const resource *r);

/* config.kubernetes.io/local-config set to anything but "false": kpt's "do not apply". */
bool res_is_local_config(const resource *r);
bool res_is_kptfile(const resource *r);

/* A copy of a whole list's trees (validators work on copies). */
resource *resource_clone(arena *a, const resource *r);
#endif
