/* set-enforcement-action: sets spec.enforcementAction on Gatekeeper constraints (catalog set-enforcement-action).
 *
 * Config: a ConfigMap whose data has exactly one key, enforcementAction, with the value deny, warn or dryrun
 * (the catalog README lists all three; its code of 2023 still refused warn). Anything else fails the step.
 * Every item with apiVersion exactly constraints.gatekeeper.sh/v1beta1 and a kind and a name gets the value; spec is
 * created when it is missing. Results as the catalog: "Number of policies set to [A]: N" then "Policy name: [x]" per
 * item, or the warning "Found no policy to set to [A]". */
#include <string.h>

#include "functions/function.h"

#define POLICY_API_VERSION "constraints.gatekeeper.sh/v1beta1"

static int read_action(fn_ctx *c, const char **action)
{
    const node *cfg = c->config;
    if (!cfg)
        return fn_fail(c, NULL,
                       "failed to process policies: set-enforcement-action needs a ConfigMap with "
                       "data.enforcementAction (deny, warn or dryrun)");
    const node *data = is_map(cfg) ? map_get(cfg, "data") : NULL;
    if (!is_map(data) || node_len(data) != 1)
        return fn_fail(c, data ? data : cfg,
                       "failed to process policies: expecting exactly 1 enforcementAction as part of the ConfigMap");
    const node *k = map_key(data, 0), *v = map_val(data, 0);
    if (!scalar_is(k, "enforcementAction"))
        return fn_fail_key(c, data, 0,
                       "failed to process policies: expecting exactly 1 enforcementAction as part of the ConfigMap, "
                       "found `%s`",
                       is_scalar(k) ? scalar(k) : "?");
    if (!is_scalar(v) || (!scalar_is(v, "deny") && !scalar_is(v, "warn") && !scalar_is(v, "dryrun")))
        return fn_fail(
            c, v, "failed to process policies: expected values for enforcementAction are [deny], [warn] or [dryrun]");
    *action = scalar(v);
    return 0;
}

static int run(fn_ctx *c)
{
    const char *action = "";
    if (read_action(c, &action) < 0)
        return -1;
    const resource **set = NULL;
    size_t n = 0;
    if (c->items->n)
        set = arena_alloc(c->a, c->items->n * sizeof *set);
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        const char *av = res_api_version(r), *kind = res_kind(r), *name = res_name(r);
        if (!av || strcmp(av, POLICY_API_VERSION) || !kind || !*kind || !name || !*name)
            continue;
        node *spec = map_ensure_map(c->a, r->root, "spec");
        if (!spec)
            return fn_fail_res(c, r, map_get(r->root, "spec"), "failed to process policies: spec is not a map");
        map_set_str(c->a, spec, "enforcementAction", action);
        set[n++] = r;
    }
    if (!n) {
        fn_result_add(c, SEV_WARNING, NULL, NULL, "Found no policy to set to [%s]", action);
        return 0;
    }
    fn_result_add(c, SEV_INFO, NULL, NULL, "Number of policies set to [%s]: %zu", action, n);
    for (size_t i = 0; i < n; i++)
        fn_result_add(c, SEV_INFO, set[i], NULL, "Policy name: [%s]", res_name(set[i]));
    return 0;
}

const fn_def fn_set_enforcement_action = {
    .name = "set-enforcement-action",
    .summary = "set spec.enforcementAction (deny, warn or dryrun) on Gatekeeper constraints",
    .run = run,
    .releases = "0.1.0",
    .readme = {
        .does = "`spec.enforcementAction` on Gatekeeper constraints",
        .differs = "`warn` is accepted, as the catalog README says",
        .versions = "v0.1.0 is the only release; `latest` and `unstable` run the same logic and messages",
    },
};
