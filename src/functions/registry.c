/* Built-in functions by catalog basename. A Kptfile names them by any image path, tag or exec binary. */
#include <ctype.h>
#include <string.h>

#include "functions/function.h"
#include "util/buf.h"

extern const fn_def fn_set_labels;
extern const fn_def fn_render_helm_chart;
extern const fn_def fn_kustomize_build;
extern const fn_def fn_set_annotations;
extern const fn_def fn_set_namespace;
extern const fn_def fn_set_image;
extern const fn_def fn_apply_replacements;
extern const fn_def fn_search_replace;
extern const fn_def fn_apply_setters;
extern const fn_def fn_create_setters;
extern const fn_def fn_list_setters;
extern const fn_def fn_ensure_name_substring;
extern const fn_def fn_upsert_resource;
extern const fn_def fn_remove_local_config_resources;
extern const fn_def fn_set_enforcement_action;
extern const fn_def fn_delete_annotations;
extern const fn_def fn_drop_comments;
extern const fn_def fn_format;
extern const fn_def fn_no_op;
extern const fn_def fn_set_name_prefix;
extern const fn_def fn_starlark;
extern const fn_def fn_enable_gcp_services;
extern const fn_def fn_generate_folders;

static const fn_def *const registry[] = {
    &fn_apply_replacements,
    &fn_apply_setters,
    &fn_create_setters,
    &fn_delete_annotations,
    &fn_drop_comments,
    &fn_enable_gcp_services,
    &fn_ensure_name_substring,
    &fn_format,
    &fn_generate_folders,
    &fn_kustomize_build,
    &fn_list_setters,
    &fn_no_op,
    &fn_remove_local_config_resources,
    &fn_render_helm_chart,
    &fn_search_replace,
    &fn_set_annotations,
    &fn_set_enforcement_action,
    &fn_set_image,
    &fn_set_labels,
    &fn_set_name_prefix,
    &fn_set_namespace,
    &fn_starlark,
    &fn_upsert_resource,
    NULL,
};

const fn_def *const *fn_all(void)
{
    return registry;
}

static const fn_def *exact(const char *name)
{
    /* the catalog's first names, renamed at its v0.1.3 (gcr.io/kpt-fn/set-annotation:v0.1.2 is still pullable) */
    if (!strcmp(name, "set-annotation"))
        name = "set-annotations";
    else if (!strcmp(name, "set-label"))
        name = "set-labels";
    for (const fn_def *const *f = registry; *f; f++)
        if (!strcmp((*f)->name, name))
            return *f;
    return NULL;
}

/* Cuts a version suffix such as "-v0.1.5", "_v1" or "-1.2" that exec binaries carry. */
static bool strip_version(char *s)
{
    for (char *p = s + strlen(s); p-- > s;) {
        if ((*p == '-' || *p == '_') && p > s) {
            const char *v = p + 1;
            if (*v == 'v' || *v == 'V')
                v++;
            if (isdigit((unsigned char)*v)) {
                *p = 0;
                return true;
            }
        }
    }
    return false;
}

const fn_def *fn_lookup(const char *name)
{
    const fn_def *f = exact(name);
    if (f)
        return f;
    char tmp[256];
    if (strlen(name) >= sizeof tmp)
        return NULL;
    strcpy(tmp, name);
    while (strip_version(tmp))
        if ((f = exact(tmp)))
            return f;
    return NULL;
}

char *fn_ref_split(arena *a, const char *ref, const char **tag)
{
    while (*ref == ' ' || *ref == '\t')
        ref++;
    size_t n = strcspn(ref, " \t"); /* exec: the binary, not its arguments */
    char *s = arena_strndup(a, ref, n);
    char *at = strchr(s, '@');
    if (at)
        *at = 0; /* name:tag@digest: the tag still says what it is; a digest alone says nothing we can read */
    char *slash = strrchr(s, '/');
    char *base = slash ? slash + 1 : s;
    char *colon = strchr(base, ':');
    *tag = colon && colon[1] ? colon + 1 : NULL;
    if (colon)
        *colon = 0;
    return base;
}

const char *fn_basename(arena *a, const char *ref)
{
    const char *tag;
    char *base = fn_ref_split(a, ref, &tag);
    size_t bl = strlen(base);
    if (bl > 4 && !strcmp(base + bl - 4, ".exe"))
        base[bl - 4] = 0;
    return base;
}

/* Splits a command line the way kpt does (shell-like words: quotes and backslashes, no expansion). Returns the
 * number of words (at most max), or -1 for an unterminated quote. */
static int split_words(arena *a, const char *cmd, const char **words, int max)
{
    int n = 0;
    const char *p = cmd;
    buf w = {0};
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        w.len = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'') {
                const char *e = strchr(p + 1, '\'');
                if (!e) {
                    buf_free(&w);
                    return -1;
                }
                buf_put(&w, p + 1, (size_t)(e - p - 1));
                p = e + 1;
            } else if (*p == '"') {
                for (p++; *p && *p != '"'; p++) {
                    if (*p == '\\' && p[1])
                        p++;
                    buf_put(&w, p, 1);
                }
                if (!*p) {
                    buf_free(&w);
                    return -1;
                }
                p++;
            } else {
                if (*p == '\\' && p[1])
                    p++;
                buf_put(&w, p, 1);
                p++;
            }
        }
        if (n < max)
            words[n] = arena_strndup(a, w.data ? w.data : "", w.len);
        n++;
    }
    buf_free(&w);
    return n;
}

const char *fn_exec_ref(arena *a, const char *cmd, const char **why)
{
    const char *w[4];
    int n = split_words(a, cmd, w, 4);
    *why = NULL;
    if (n < 0) {
        *why = "has an unterminated quote";
        return NULL;
    }
    if (n == 0) {
        *why = "is empty";
        return NULL;
    }
    /* the program's own name: a path may hold spaces here, so not fn_basename's first-word rule */
    const char *slash = strrchr(w[0], '/');
    char *prog = arena_strdup(a, slash ? slash + 1 : w[0]);
    size_t pl = strlen(prog);
    if (pl > 4 && !strcmp(prog + pl - 4, ".exe"))
        prog[pl - 4] = 0;
    if (!strcmp(prog, "cmp-generate")) {
        if (n != 3 || strcmp(w[1], "fn")) {
            *why = "runs cmp-generate with other arguments than `fn NAME` (the only form a pipeline may use)";
            return NULL;
        }
        if (!fn_lookup(fn_basename(a, w[2]))) {
            *why = arena_printf(a, "names \"%s\", which is not a built-in function", w[2]);
            return NULL;
        }
        return w[2];
    }
    if (!fn_lookup(prog)) {
        *why = arena_printf(a, "runs \"%s\", which is neither cmp-generate nor named after a built-in function", w[0]);
        return NULL;
    }
    if (n > 1) {
        *why = arena_printf(a, "passes arguments to \"%s\"; a wrapper named after a built-in function is mapped to "
                               "the built-in and never run, so its arguments would be lost", w[0]);
        return NULL;
    }
    return w[0];
}

const char *fn_names(arena *a)
{
    buf b = {0};
    for (const fn_def *const *f = registry; *f; f++) {
        if (f != registry)
            buf_puts(&b, ", ");
        buf_puts(&b, (*f)->name);
    }
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}
