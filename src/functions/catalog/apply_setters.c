/* apply-setters: writes setter values into the fields that carry a "# kpt-set: PATTERN" line comment
 * (catalog apply-setters, applysetters/apply_setters.go). Every item is processed, the Kptfile and
 * local-config objects included, as the catalog does.
 *
 * The releases differ in what they report, not in how they set fields (catalog-function-versions, apply-setters):
 * v0.1.0 reports nothing and takes an empty config or no match quietly; v0.1.1 reports each field and fails on
 * either; v0.2.x reports "no matches" instead of failing; the 2026 master shortens long values and redacts values
 * that look like secrets in its reports. */
#include <ctype.h>
#include <string.h>

#include "functions/krm/setters.h"

enum profile {
    /* v0.1.0: no results; an empty config or no match is not an error. Its recovery of current values read the
     * pattern as a regular expression ("." matching any character), which can recover a wrong value and write it
     * without a word; here, as from v0.1.1, the pattern is taken literally. */
    V010,
    V011,   /* v0.1.1: results; an empty config or no match is an error */
    V02,    /* v0.2.0-v0.2.1: results; "no matches for input setter(s)" */
    NEWEST, /* 2026 master: as v0.2, values in results truncated or redacted */
};

static enum profile profile_of(const fn_version *v)
{
    if (fn_version_before(v, 0, 1, 1))
        return V010;
    if (fn_version_before(v, 0, 2, 0))
        return V011;
    return v->pinned ? V02 : NEWEST;
}

struct apply {
    fn_ctx *c;
    enum profile profile;
    const resource *r;
    const setter_value *setters;
    size_t nsetters;
    int applied;
};

/* What the 2026 master counts as a secret in a result (its trim.go and secret_scan.go). Its rules are a port of a
 * secret scanner: a keyword gate, a regular expression, entropy and "looks benign" filters per token kind. Here each
 * kind is matched by its shape alone, without the entropy and benign filters, so that everything the catalog
 * redacts is redacted here too, and a little more (an "AKIA..."-shaped example key, a UUID after "Bearer "). */

/* word is lower case */
static bool prefix_ci(const char *s, const char *word)
{
    for (; *word; s++, word++)
        if (tolower((unsigned char)*s) != *word)
            return false;
    return true;
}

static bool contains_ci(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++) {
        size_t k = 0;
        while (k < w && tolower((unsigned char)s[i + k]) == word[k])
            k++;
        if (k == w)
            return true;
    }
    return false;
}

/* Field paths and setter names that name a secret: the value is redacted whatever it looks like. */
static bool sensitive_name(const char *s, size_t n)
{
    static const char *const words[] = {"password", "passwd",     "secret",      "token", "apikey",
                                        "api_key",  "api-key",    "credential",  "privatekey",
                                        "private_key", "cert",    "certificate", "bearer", "auth"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (contains_ci(s, n, words[i]))
            return true;
    return false;
}

/* Whether s starts with at least min letters, digits or characters of extra. Looks no further than min, so that
 * trying it at every position of a value stays linear. */
static bool run_of(const char *s, const char *extra, size_t min)
{
    for (size_t n = 0; n < min; n++)
        if (!s[n] || !(isalnum((unsigned char)s[n]) || (extra && strchr(extra, s[n]))))
            return false;
    return true;
}

static bool run_upper_b32(const char *s, size_t min)
{
    for (size_t n = 0; n < min; n++)
        if (!((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '2' && s[n] <= '7')))
            return false;
    return true;
}

/* A JSON web token: "ey", 17 or more letters and digits, then ".ey". One pass over the runs of letters and digits:
 * a run qualifies when ".ey" follows it and an "ey" starts at least 19 characters before its end. */
static bool has_jwt(const char *v)
{
    for (const char *p = v; *p;) {
        if (!isalnum((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *first_ey = NULL;
        for (; isalnum((unsigned char)*p); p++)
            if (!first_ey && p[0] == 'e' && p[1] == 'y')
                first_ey = p;
        if (first_ey && p - first_ey >= 19 && !strncmp(p, ".ey", 3))
            return true;
    }
    return false;
}

/* A long run of base64 characters with at least two kinds of them: a key or a blob. Bytes outside ASCII count as
 * letters (the catalog counts Unicode letters), which can only redact more. */
static bool long_base64_like(const char *v)
{
    size_t n = strlen(v);
    if (n < 40)
        return false;
    bool up = false, low = false, dig = false, sym = false;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (isupper(*p))
            up = true;
        else if (islower(*p) || *p >= 0x80)
            low = true;
        else if (isdigit(*p))
            dig = true;
        else if (*p == '+' || *p == '/' || *p == '=')
            sym = true;
        else
            return false;
    }
    return up + low + dig + sym >= 2;
}

/* "scheme://user:password@": a ':' and then an '@' in the run of non-blank characters after "://". */
static bool credentialed_uri(const char *v)
{
    static const char *const schemes[] = {"mongodb://", "mongodb+srv://", "postgres://", "postgresql://",
                                          "mysql://",   "redis://",       "amqp://"};
    size_t n = strlen(v);
    for (size_t s = 0; s < sizeof schemes / sizeof *schemes; s++) {
        size_t w = strlen(schemes[s]);
        for (size_t i = 0; i + w <= n; i++) {
            if (!prefix_ci(v + i, schemes[s]))
                continue;
            /* a later scheme in the same run of non-blanks would find nothing this scan does not: skip past it */
            bool colon = false;
            const char *p = v + i + w;
            for (; *p && !isspace((unsigned char)*p); p++) {
                if (*p == ':')
                    colon = true;
                else if (*p == '@' && colon)
                    return true;
            }
            i = (size_t)(p - v);
        }
    }
    return false;
}

static bool value_looks_secret(const char *v)
{
    static const char *const markers[] = {"-----BEGIN ", "github_pat_", "glpat-", "T3BlbkFJ"};
    static const char *const markers_ci[] = {"xoxb-", "xapp-", "sk_test", "sk_live", "sk_prod",
                                             "rk_test", "rk_live", "rk_prod"};
    size_t n = strlen(v);
    if (!n)
        return false;
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
        if (strstr(v, markers[i]))
            return true;
    for (size_t i = 0; i < sizeof markers_ci / sizeof *markers_ci; i++)
        if (contains_ci(v, n, markers_ci[i]))
            return true;
    if (credentialed_uri(v) || long_base64_like(v) || has_jwt(v))
        return true;
    for (size_t i = 0; i < n; i++) {
        const char *p = v + i;
        /* an AWS access key id */
        if ((!strncmp(p, "A3T", 3) && isalnum((unsigned char)p[3]) && run_upper_b32(p + 4, 16)) ||
            ((!strncmp(p, "AKIA", 4) || !strncmp(p, "ASIA", 4) || !strncmp(p, "ABIA", 4) || !strncmp(p, "ACCA", 4)) &&
             run_upper_b32(p + 4, 16)))
            return true;
        /* GitHub tokens */
        if (!strncmp(p, "gh", 2) && p[2] && strchr("pous", p[2]) && p[3] == '_' && run_of(p + 4, NULL, 36))
            return true;
        /* a GCP API key */
        if (!strncmp(p, "AIza", 4) && run_of(p + 4, "_-", 35))
            return true;
        /* an Azure AD client secret: a digit, then "Q~" */
        if (isdigit((unsigned char)p[0]) && p[1] == 'Q' && p[2] == '~')
            return true;
        /* "Bearer <token>" and "Basic <credentials>" */
        bool bearer = prefix_ci(p, "bearer"), basic = prefix_ci(p, "basic");
        if (bearer || basic) {
            const char *q = p + (bearer ? 6 : 5);
            if (!isspace((unsigned char)*q))
                continue;
            while (isspace((unsigned char)*q))
                q++;
            if (run_of(q, bearer ? "._~+/=-" : "+/=", bearer ? 10 : 8))
                return true;
        }
    }
    return false;
}

#define MAX_REPORTED_CHARS 128

/* A value as the 2026 master reports it: "<redacted>" when the field path, a setter name of the pattern or the
 * value itself looks secret; otherwise cut after 128 characters (code points) with a note of how many went. */
static const char *reported_value(arena *a, const char *value, const char *field, const char *pattern)
{
    bool secret = sensitive_name(field, strlen(field)) || value_looks_secret(value);
    setter_ref *refs;
    size_t nrefs = secret ? 0 : setter_refs(a, pattern, &refs);
    for (size_t i = 0; i < nrefs && !secret; i++)
        secret = sensitive_name(refs[i].name, strlen(refs[i].name));
    if (secret)
        return "<redacted>";
    size_t chars = 0, cut = 0;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if ((*p & 0xC0) != 0x80 && ++chars == MAX_REPORTED_CHARS + 1)
            cut = (size_t)((const char *)p - value);
    if (chars <= MAX_REPORTED_CHARS)
        return value;
    return arena_printf(a, "%.*s... (truncated %zu chars)", (int)cut, value, chars - MAX_REPORTED_CHARS);
}

/* The result for one field set: none in v0.1.0; without a severity up to v0.2.x; info, with the value shortened or
 * redacted, in the 2026 master. */
static void report_set(struct apply *ap, const char *field, const char *value, const char *pattern)
{
    fn_ctx *c = ap->c;
    switch (ap->profile) {
    case V010:
        return;
    case V011:
    case V02:
        fn_result_add(c, SEV_NONE, ap->r, field, "set field value to %s", go_quote(c->a, value));
        return;
    case NEWEST:
        fn_result_add(c, SEV_INFO, ap->r, field, "set field value to %s",
                      go_quote(c->a, reported_value(c->a, value, field, pattern)));
        return;
    }
}

static const setter_value *given(const struct apply *ap, const char *name)
{
    for (size_t i = 0; i < ap->nsetters; i++)
        if (!strcmp(ap->setters[i].name, name))
            return &ap->setters[i];
    return NULL;
}

/* A field is only touched when the config names one of its setters: the others are left for later steps. */
static bool names_a_given_setter(const struct apply *ap, const setter_ref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (given(ap, refs[i].name))
            return true;
    return false;
}

/* Parsed setter text carries the line numbers of the value string; they would point error messages at the
 * wrong lines of the resource's file. A key without a line of its own (a shared one: its line is its value's)
 * has none to forget. */
static void forget_lines(arena *a, node *n)
{
    node_set_pos(n, 0, 0);
    for (uint32_t i = 0; i < node_len(n); i++) { /* by index: one loop for a map or a sequence */
        if (is_map(n)) {
            if (node_line(map_key(n, i)))
                node_set_pos(map_key_own(a, n, i), 0, 0);
            forget_lines(a, map_val(n, i));
        } else {
            forget_lines(a, seq_item(n, i));
        }
    }
}

static int apply_array(struct apply *ap, node *map, uint32_t at, const char *pattern, field_path *path)
{
    const node *key = map_key(map, at);
    node *seq = map_val(map, at);
    fn_ctx *c = ap->c;
    setter_ref *refs;
    size_t nrefs = setter_refs(c->a, pattern, &refs);
    if (!names_a_given_setter(ap, refs, nrefs))
        return 0;
    const node *holder = seq_comment_holder(key, seq);
    if (nrefs != 1 || refs[0].at != 0 || refs[0].len != strlen(pattern))
        return fn_fail_res(c, ap->r, holder, "invalid setter pattern for array node: %s", go_quote(c->a, pattern));
    const setter_value *sv = given(ap, refs[0].name);
    const char *comment = node_comment(holder);
    const char *field = field_path_with_key(c->a, path, scalar(key));
    /* The value goes into an error message: shown as the newest release would report it, never a secret. */
    const char *shown = go_quote(c->a, reported_value(c->a, sv->value, field, pattern));
    if (!*sv->value && ap->profile == V010)
        /* v0.1.0 parsed the empty value as YAML, which fails; "[]" came in v0.1.1 */
        return fn_fail_res(c, ap->r, holder,
                           "setter \"%s\": input to array setter must be an array of values, but found %s", sv->name,
                           shown);
    if (!*sv->value) {
        /* An empty list can only be written "[]", so the comment has to follow the "]". */
        node_clear(seq);
        node_set_style(seq, ST_FLOW);
        node_set_comment(c->a, seq, comment);
        if (node_comment(key))
            node_set_comment(c->a, map_key_own(c->a, map, at), NULL);
    } else {
        node *items = NULL;
        int parsed = setter_parse_value(c, sv->value, &items);
        if (parsed < 0)
            return -1;
        if (!parsed || !is_seq(items))
            return fn_fail_res(c, ap->r, holder,
                               "setter \"%s\": input to array setter must be an array of values, but found %s",
                               sv->name, shown);
        forget_lines(c->a, items);
        /* the items move over; seq keeps its own tag, comments and position */
        node_clear(seq);
        seq_foreach(items, i, item)
            seq_append(c->a, seq, item);
        /* Block style, with the comment on the key; the catalog leaves a flow list's comment on the value as
         * well, which would print it twice: it is kept once, on the key. */
        node_set_style(seq, ST_BLOCK);
        node_set_comment(c->a, map_key_own(c->a, map, at), comment);
        if (holder == seq)
            node_set_comment(c->a, seq, NULL);
    }
    ap->applied++;
    report_set(ap, field, sv->value, pattern);
    return 0;
}

static int visit_mapping(void *ud, node *map, field_path *path)
{
    struct apply *ap = ud;
    map_foreach(map, i, key, val) {
        if (!is_seq(val))
            continue;
        const char *pattern = setter_pattern(ap->c->a, node_comment(seq_comment_holder(key, val)));
        if (pattern && apply_array(ap, map, i, pattern, path) < 0)
            return -1;
    }
    return 0;
}

/* The new value, built in one pass over the pattern: given setters first, the others recovered from the
 * current value. One pass means a value that itself contains "${x}" is written as it is; the catalog
 * substitutes setter by setter and would read it as another reference. */
static int visit_scalar(void *ud, node *n, field_path *path)
{
    struct apply *ap = ud;
    fn_ctx *c = ap->c;
    const char *pattern = setter_pattern(c->a, node_comment(n));
    if (!pattern)
        return 0;
    setter_ref *refs;
    size_t nrefs = setter_refs(c->a, pattern, &refs);
    if (!names_a_given_setter(ap, refs, nrefs))
        return 0;
    const char **recovered = NULL;
    for (size_t i = 0; i < nrefs && !recovered; i++)
        if (!given(ap, refs[i].name)) {
            recovered = arena_alloc(c->a, nrefs * sizeof *recovered);
            if (!setter_recover(c->a, pattern, refs, nrefs, scalar(n), recovered))
                memset(recovered, 0, nrefs * sizeof *recovered);
        }
    buf out = {0}, missing = {0};
    size_t from = 0;
    for (size_t i = 0; i < nrefs; i++) {
        buf_put(&out, pattern + from, refs[i].at - from);
        from = refs[i].at + refs[i].len;
        const setter_value *sv = given(ap, refs[i].name);
        const char *v = sv ? sv->value : NULL;
        /* a name that appears twice takes the value recovered for its last appearance, as in the catalog */
        for (size_t j = nrefs; !v && j-- > 0;)
            if (recovered && recovered[j] && !strcmp(refs[j].name, refs[i].name))
                v = recovered[j];
        if (v) {
            buf_puts(&out, v);
        } else {
            buf_printf(&missing, "%s${%s}", missing.len ? " " : "", refs[i].name);
            buf_put(&out, pattern + refs[i].at, refs[i].len);
        }
    }
    buf_puts(&out, pattern + from);
    if (missing.len) {
        const char *list = arena_strndup(c->a, missing.data, missing.len);
        buf_free(&out);
        buf_free(&missing);
        return fn_fail_res(c, ap->r, n, "values for setters [%s] must be provided", list);
    }
    /* The tag goes so the new text is read for what it is ("3" for replicas becomes a number); the style stays,
     * so a quoted value stays a string. An empty value would read as null unless quoted: v0.1.0 wrote it plain, a
     * null where the author asked for "", which is not reproduced. */
    const char *text = buf_cstr(&out);
    scalar_set(c->a, n, text, strlen(text), SCALAR_AS_WRITTEN);
    buf_free(&out);
    buf_free(&missing);
    if (!scalar_len(n))
        node_set_style(n, ST_DOUBLE);
    ap->applied++;
    report_set(ap, field_path_str(c->a, path), scalar(n), pattern);
    return 0;
}

static int run(fn_ctx *c)
{
    if (!c->config)
        return fn_fail(c, NULL, "apply-setters needs a functionConfig: a ConfigMap whose `data` holds the setter values");
    if (!is_map(c->config))
        return fn_fail(c, c->config, "apply-setters: the functionConfig must be an object with a `data` map of setter values");
    struct apply ap = {c, profile_of(&c->version), NULL, NULL, 0, 0};
    setter_value *setters;
    if (setters_from_data(c, map_get(c->config, "data"), "apply-setters", &setters, &ap.nsetters) < 0)
        return -1;
    ap.setters = setters;
    if (!ap.nsetters && ap.profile == V011)
        return fn_fail(c, c->config, "input setters list cannot be empty");
    setter_walk w = {visit_mapping, visit_scalar, &ap, {{0}}};
    int rc = 0;
    for (size_t i = 0; i < c->items->n && rc == 0 && ap.nsetters; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        ap.r = r;
        rc = setter_walk_tree(&w, r->root);
    }
    setter_walk_done(&w);
    if (rc < 0)
        return -1;
    if (ap.applied)
        return 0;
    switch (ap.profile) {
    case V010:
        return 0;
    case V011:
        return fn_fail(c, c->config, "no matches for the input list of setters");
    case V02:
    case NEWEST:
        /* a result without a severity, as the catalog's own no-matches test records it */
        fn_result_add(c, SEV_NONE, NULL, NULL, "no matches for input setter(s)");
        return 0;
    }
    return 0;
}

const fn_def fn_apply_setters = {
    .name = "apply-setters",
    .summary = "write setter values into fields marked with `# kpt-set: ${name}` comments",
    .run = run,
    .releases = "0.1.0 0.1.1 0.2.0 0.2.1",
    .readme = {
        .does = "values into fields marked `# kpt-set: ${name}`",
        .differs = "values are substituted in one pass; a null, map or list setter value is an error; a flow list "
                "turned block keeps its comment once, on the key; no config at all is an error; a setter value in an "
                "error message is shown as the 2026 release reports values; v0.1.0: current values are recovered "
                "with the pattern taken literally (v0.1.0 read it as a regular expression, which can recover a wrong "
                "value and write it without a word) and an empty value gives `\"\"` (v0.1.0 wrote an empty plain "
                "scalar, a null); `latest`: the redaction covers the shapes of the catalog's secret rules without "
                "their entropy and \"looks benign\" filters, so it redacts a little more than the catalog",
        .versions = "v0.1.0: no results; an empty config or no match is not an error; an empty value for a list is an "
                "error · v0.1.1: a `set field value to \"…\"` result per field; no match (`no matches for the input "
                "list of setters`) or no setters (`input setters list cannot be empty`) is an error · v0.2.0–v0.2.1: "
                "neither is an error: a result `no matches for input setter(s)`, exit 0 · `latest`, `unstable`: as "
                "v0.2, the results at severity info, values in them cut after 128 characters, and `<redacted>` for a "
                "value whose field path or setter name names a secret (`password`, `token`, `auth`, `cert`, ...) or "
                "that looks like a key, token, credentialed URL or long base64 blob",
    },
};
