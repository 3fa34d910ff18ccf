/* Flux's verify with provider notation (spec §3.3): `notation verify` of the chart's manifest by digest, through the
 * operator's notation (CMP_NOTATION_BIN; notation is not in Debian bookworm) with the trust policy and certificates
 * the operator mounted for the verify.secretRef name (CMP_NOTATION_CONFIG_DIR/<name>/, notation's XDG_CONFIG_HOME).
 * Without either it is an error: never rendered unverified. */
#include <string.h>
#include <sys/stat.h>

#include "flux/internal.h"
#include "functions/tools/external.h"
#include "util/diag.h"

int flux_notation_verify(struct fn_ctx *c, const char *who, const char *where, const node *at, const char *key_name,
                         const char *ref)
{
    arena *a = c->a;
    const fn_host *h = c->host;
    if (!h || !h->notation_bin)
        return fn_fail(c, at, "%s: %sverify.provider notation needs the operator's notation (CMP_NOTATION_BIN on the "
                              "sidecar), which this sidecar does not have; not rendered unverified",
                       who, where);
    if (!key_name)
        return fn_fail(c, at, "%s: %sverify.secretRef must name the trust policy notation verifies with; not rendered "
                              "unverified",
                       who, where);
    if (!h->notation_config_dir)
        return fn_fail(c, at, "%s: %sverify.secretRef names a trust policy, and the sidecar has none "
                              "(CMP_NOTATION_CONFIG_DIR, set by the operator); not rendered unverified",
                       who, where);
    const char *home = arena_printf(a, "%s/%s", h->notation_config_dir, key_name);
    struct stat st;
    if (stat(arena_printf(a, "%s/notation", home), &st) != 0 || !S_ISDIR(st.st_mode))
        return fn_fail(c, at, "%s: %sverify.secretRef %s: no trust policy (notation/) for it in "
                              "CMP_NOTATION_CONFIG_DIR; not rendered unverified",
                       who, where, key_name);
    if (!ref)
        return 0; /* checked before the pull: the digest comes after it */
    const char *env[] = {arena_printf(a, "XDG_CONFIG_HOME=%s", home),
                         h->helm_credentials_dir ? arena_printf(a, "DOCKER_CONFIG=%s", h->helm_credentials_dir) : NULL,
                         NULL};
    const char *argv[] = {h->notation_bin, "verify", "--", ref, NULL};
    child_fds none = {0};
    return run_tool_fds(c, arena_printf(a, "notation verify of %s's chart", who), argv, env, NULL, &none);
}
