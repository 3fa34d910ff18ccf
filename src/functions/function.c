/* Helpers shared by function bodies: results, errors that name the config, config shapes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "functions/function.h"
#include "util/diag.h"

static void result_add(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *fmt,
                       va_list ap)
{
    if (!c->results)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fn_result_add_text(c, sev, r, field ? arena_strdup(c->a, field) : NULL, arena_strdup(c->a, msg));
}

void fn_result_add_text(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *text)
{
    if (!c->results)
        return;
    fn_results *rs = c->results;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 16;
        rs->v = xrealloc(rs->v, rs->cap * sizeof *rs->v);
    }
    rs->v[rs->n++] = (fn_result){sev, text, r, field};
}

void fn_result_add(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    result_add(c, sev, r, field, fmt, ap);
    va_end(ap);
}

void fn_failure_result(fn_ctx *c, enum severity sev, const resource *r, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    result_add(c, sev, r, field, fmt, ap);
    va_end(ap);
    c->failure_reported = true;
}

/* The error lines name `line`, else the config's (the resource's) own. place: the error was recorded already by a
 * callee's fail_here(), and the message is the context put in front of it (diag_locate). */
static int config_fail(fn_ctx *c, uint32_t line, bool place, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *file = c->config_file ? c->config_file : "functionConfig";
    int l = line ? (int)line : c->config_line;
    return place ? diag_locate(file, l, "%s", msg) : fail(file, l, "%s", msg);
}

static int res_fail(fn_ctx *c, const resource *r, uint32_t line, bool place, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *file = r ? res_file(c->a, r) : NULL, *id = r ? res_id(c->a, r) : "resource";
    int l = line ? (int)line : r ? (int)r->line : 0;
    return place ? diag_locate(file, l, "%s: %s", id, msg) : fail(file, l, "%s: %s", id, msg);
}

int fn_fail(fn_ctx *c, const node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = config_fail(c, node_line(at), false, fmt, ap);
    va_end(ap);
    return rc;
}

int fn_locate(fn_ctx *c, const node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = config_fail(c, node_line(at), true, fmt, ap);
    va_end(ap);
    return rc;
}

int fn_fail_recorded(fn_ctx *c, bool record, const node *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (record)
        fn_failure_result(c, SEV_ERROR, NULL, NULL, "%s", msg);
    return fn_fail(c, at, "%s", msg);
}

/* A key's line; a key the program made (a Kptfile's configMap as a ConfigMap) has none, its value may. */
static uint32_t key_line(const node *m, uint32_t i)
{
    uint32_t line = map_key_line(m, i);
    return line ? line : node_line(map_val(m, i));
}

int fn_fail_key(fn_ctx *c, const node *m, uint32_t i, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = config_fail(c, key_line(m, i), false, fmt, ap);
    va_end(ap);
    return rc;
}

void fn_warn_key(fn_ctx *c, const node *m, uint32_t i, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint32_t line = key_line(m, i);
    int l = line ? (int)line : c->config_line;
    const char *file = c->config_file ? c->config_file : "functionConfig", *step = diag_step();
    char where[64] = "";
    if (l > 0)
        snprintf(where, sizeof where, ":%d", l);
    diag_warn("%s%s: %s%s%s", file, where, step && *step ? step : "", step && *step ? ": " : "", msg);
}

int fn_fail_res(fn_ctx *c, const resource *r, const node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = res_fail(c, r, node_line(at), false, fmt, ap);
    va_end(ap);
    return rc;
}

int fn_locate_res(fn_ctx *c, const resource *r, const node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = res_fail(c, r, node_line(at), true, fmt, ap);
    va_end(ap);
    return rc;
}

int fn_fail_res_key(fn_ctx *c, const resource *r, const node *m, uint32_t i, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = res_fail(c, r, map_key_line(m, i), false, fmt, ap);
    va_end(ap);
    return rc;
}

bool config_is(const node *config, const char *kind, const char *group)
{
    const char *k = path_str(config, "kind", NULL), *av = path_str(config, "apiVersion", NULL);
    if (!k || strcmp(k, kind))
        return false;
    if (!group)
        return true;
    const char *slash = av ? strrchr(av, '/') : NULL;
    size_t gl = slash ? (size_t)(slash - av) : 0;
    return strlen(group) == gl && (!gl || !strncmp(av, group, gl));
}

node *config_data(const node *config)
{
    if (!config_is(config, "ConfigMap", ""))
        return NULL;
    return map_get(config, "data");
}

int fn_no_config(fn_ctx *c, const char *fn)
{
    if (!c->config)
        return 0;
    if (config_is(c->config, "ConfigMap", "")) {
        const node *data = map_get(c->config, "data");
        if (!data || is_null(data) || (is_map(data) && node_len(data) == 0))
            return 0;
        if (is_map(data))
            return fn_fail_key(c, data, 0, "%s takes no configuration: unknown key `%s`", fn,
                           scalar(map_key(data, 0)) ? scalar(map_key(data, 0)) : "?");
    }
    const char *k = path_str(c->config, "kind", NULL);
    return fn_fail(c, c->config, "%s takes no configuration (got %s%s)", fn, k ? "a " : "an object without kind",
                   k ? k : "");
}

resource *fn_new_resource(fn_ctx *c, node *root, const char *path)
{
    resource *r = resource_new(c->a, root, c->pkg, path, 0);
    rlist_push(c->items, r);
    return r;
}

bool fn_host_skips_validator(const fn_host *h, const char *fn)
{
    size_t fl = strlen(fn);
    for (const char *p = h ? h->skip_validators : NULL; p && *p;) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        if (n && ((n == 1 && *p == '*') || (n == fl && !memcmp(p, fn, n))))
            return true;
        p += n;
    }
    return false;
}
