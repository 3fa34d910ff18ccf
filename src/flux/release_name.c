/* The Helm release name helm-controller gives a HelmRelease (api GetReleaseName, internal/release/name.go). */
#include <string.h>

#include "flux/internal.h"
#include "flux/sha256.h"

const char *flux_release_name(arena *a, const char *release_name, const char *target_namespace, const char *name)
{
    if (release_name && *release_name)
        return release_name;
    if (target_namespace && *target_namespace)
        return arena_printf(a, "%s-%s", target_namespace, name);
    return name;
}

/* 53 is Helm's limit for a release name; helm-controller keeps 40 characters and a 12-digit hash of the whole. */
const char *flux_shorten_name(arena *a, const char *name)
{
    size_t n = strlen(name);
    if (n <= 53)
        return name;
    sha256_ctx c;
    char hex[65];
    sha256_init(&c);
    sha256_update(&c, name, n);
    sha256_hex(&c, hex);
    return arena_printf(a, "%.40s-%.12s", name, hex);
}
