#include "params/request.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/json.h"

static char *dup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static int bad(char *err, size_t cap, const char *fmt, const char *a, const char *b)
{
    snprintf(err, cap, fmt, a, b);
    return -1;
}

static int text_field(const json *v, const char *name, char **out, char *err, size_t cap)
{
    if (v->type != JSON_STRING)
        return bad(err, cap, "%s must be a string, not %s", name, json_type_name(v->type));
    if (strlen(v->text) > PARAMS_MAX_TEXT)
        return bad(err, cap, "%s is longer than 4096 bytes%s", name, "");
    *out = dup(v->text);
    return 0;
}

static int glob_list(const json *v, const char *name, char ***out, size_t *n, char *err, size_t cap)
{
    char where[96];
    if (v->type != JSON_ARRAY)
        return bad(err, cap, "%s must be a list of globs, not %s", name, json_type_name(v->type));
    if (v->n > PARAMS_MAX_GLOBS)
        return bad(err, cap, "%s has more than 256 entries%s", name, "");
    *out = calloc(v->n + 1, sizeof **out);
    if (!*out)
        abort();
    for (size_t i = 0; i < v->n; i++) {
        const json *e = v->items[i];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        if (e->type != JSON_STRING)
            return bad(err, cap, "%s must be a string, not %s", where, json_type_name(e->type));
        if (!*e->text || strlen(e->text) > PARAMS_MAX_GLOB_BYTES)
            return bad(err, cap, "%s must be a glob of 1 to 1024 bytes%s", where, "");
        (*out)[(*n)++] = dup(e->text);
    }
    return 0;
}

static int parameters(const json *p, params_request *r, char *err, size_t cap)
{
    if (p->type != JSON_OBJECT)
        return bad(err, cap, "input.parameters must be an object, not %s%s", json_type_name(p->type), "");
    for (size_t i = 0; i < p->n; i++) {
        const char *k = p->keys[i];
        const json *v = p->items[i];
        char name[160];
        snprintf(name, sizeof name, "input.parameters.%.100s", k);
        int rc;
        if (!strcmp(k, "repoURL"))
            rc = text_field(v, name, &r->repo_url, err, cap);
        else if (!strcmp(k, "revision"))
            rc = text_field(v, name, &r->revision, err, cap);
        else if (!strcmp(k, "paths")) {
            /* an empty list would answer an empty list, and Argo CD would delete every Application: most likely a
             * templating slip, so refused; leaving paths out selects every package */
            if (v->type == JSON_ARRAY && v->n == 0)
                return bad(err, cap, "%s is empty: it would select no package (leave it out to select all)%s", name,
                           "");
            rc = glob_list(v, name, &r->paths, &r->npaths, err, cap);
        }
        else if (!strcmp(k, "exclude"))
            rc = glob_list(v, name, &r->exclude, &r->nexclude, err, cap);
        else if (!strcmp(k, "labelSelector")) {
            if (v->type != JSON_OBJECT)
                return bad(err, cap, "%s must be an object of label values, not %s", name, json_type_name(v->type));
            if (v->n > PARAMS_MAX_SELECTOR)
                return bad(err, cap, "%s has more than 64 entries%s", name, "");
            r->sel_keys = calloc(v->n + 1, sizeof *r->sel_keys);
            r->sel_values = calloc(v->n + 1, sizeof *r->sel_values);
            if (!r->sel_keys || !r->sel_values)
                abort();
            rc = 0;
            for (size_t j = 0; rc == 0 && j < v->n; j++) {
                char where[300];
                snprintf(where, sizeof where, "%s.%.100s", name, v->keys[j]);
                if (!*v->keys[j] || strlen(v->keys[j]) > PARAMS_MAX_TEXT)
                    return bad(err, cap, "%s: a label name must have 1 to 4096 bytes%s", name, "");
                r->sel_keys[j] = dup(v->keys[j]);
                r->nsel++;
                rc = text_field(v->items[j], where, &r->sel_values[j], err, cap);
            }
        } else
            return bad(err, cap, "unknown parameter %s (known: repoURL, revision, paths, exclude, labelSelector)%s",
                       name, "");
        if (rc < 0)
            return -1;
    }
    return 0;
}

int params_request_parse(const char *body, size_t len, params_request *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    char why[200];
    json *j = json_parse(body, len, why, sizeof why);
    if (!j)
        return bad(err, cap, "the body is not valid JSON: %s%s", why, "");
    int rc = 0;
    if (j->type != JSON_OBJECT) {
        rc = bad(err, cap, "the body must be a JSON object, not %s%s", json_type_name(j->type), "");
        goto out;
    }
    /* the controller's fields; any other is ignored, as Go's decoder ignores unknown fields */
    const json *name = json_get(j, "applicationSetName"), *ns = json_get(j, "applicationSetNamespace");
    const json *input = json_get(j, "input");
    if ((name && name->type != JSON_NULL && (rc = text_field(name, "applicationSetName", &r->appset_name, err, cap)) < 0) ||
        (ns && ns->type != JSON_NULL && (rc = text_field(ns, "applicationSetNamespace", &r->appset_namespace, err, cap)) < 0))
        goto out;
    if (input && input->type != JSON_NULL) {
        if (input->type != JSON_OBJECT) {
            rc = bad(err, cap, "input must be an object, not %s%s", json_type_name(input->type), "");
            goto out;
        }
        const json *p = json_get(input, "parameters");
        if (p && p->type != JSON_NULL && (rc = parameters(p, r, err, cap)) < 0)
            goto out;
    }
    if (!r->repo_url || !*r->repo_url) {
        rc = bad(err, cap, "input.parameters.repoURL is required (the repository whose packages to list)%s%s", "", "");
        goto out;
    }
    if (!r->revision)
        r->revision = dup("HEAD");
    else if (!*r->revision) {
        rc = bad(err, cap, "input.parameters.revision must not be empty (leave it out for HEAD)%s%s", "", "");
        goto out;
    }
    if (!r->paths) {
        r->paths = calloc(2, sizeof *r->paths);
        if (!r->paths)
            abort();
        r->paths[0] = dup("**");
        r->npaths = 1;
    }
out:
    json_free(j);
    if (rc < 0)
        params_request_free(r); /* what was taken before the error (found by fuzz_params_request: a leak) */
    return rc;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void params_request_free(params_request *r)
{
    free(r->appset_name);
    free(r->appset_namespace);
    free(r->repo_url);
    free(r->revision);
    free_list(r->paths, r->npaths);
    free_list(r->exclude, r->nexclude);
    free_list(r->sel_keys, r->nsel);
    free_list(r->sel_values, r->nsel);
    memset(r, 0, sizeof *r);
}
