/* Which catalog release a pipeline step pins. The catalog's functions changed behaviour between releases (see the
 * README's function table); a step gets the behaviour of the version its image tag, exec name or `tag:` names. */
#ifndef CMP_FUNCTIONS_VERSION_H
#define CMP_FUNCTIONS_VERSION_H
#include <stdbool.h>

#include "util/arena.h"

typedef struct fn_version {
    /* false: latest, unstable, no tag, a digest, a short SHA, or a tag we do not know: the newest known behaviour.
     * The zero value is therefore "newest", which is what steps made by the program itself (parameters) get. */
    bool pinned;
    int major, minor, patch;
    /* The tag is `unstable`: gcr's master build (frozen 2022-25). It gets the newest behaviour all the same; a
     * function whose results (never its objects) differ there may word them as that build recorded them. */
    bool unstable;
} fn_version;

/* True when v is a pinned release older than major.minor.patch: the function behaves as before that release. */
bool fn_version_before(const fn_version *v, int major, int minor, int patch);

/* Resolves a step's version. fn is the built-in's name; tag is the tag from the image reference or the exec name
 * ("v0.1.5", "latest", NULL for none); tag_field the Kptfile's `tag:` (an exact tag or a semver constraint such as
 * "~0.2", resolved against the releases we know), NULL when absent. Never fails: what we cannot place gets the
 * newest behaviour and *warning says so (NULL when there is nothing to say). */
void fn_version_resolve(arena *a, const char *fn, const char *tag, const char *tag_field, fn_version *out,
                        const char **warning);

/* The tag of an image reference ("gcr.io/kpt-fn/set-labels:v0.1.5" -> "v0.1.5"), or of a versioned exec name
 * ("set-labels-v0.1.5" -> "v0.1.5"); NULL when there is none or the reference is pinned by digest only. */
const char *fn_ref_tag(arena *a, const char *ref);

/* "v0.1.5", or "latest" when not pinned, for messages and reports. */
const char *fn_version_str(arena *a, const fn_version *v);
#endif
