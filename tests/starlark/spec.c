/* The spec-test driver: runs go.starlark.net's own test files (tests/data/starlark, BSD-3) through our
 * interpreter as starlarktest runs them: a file is split into chunks at "---" lines, each chunk runs alone (its
 * line numbers those of the file), and an error is expected exactly where a line carries `### "regex"` (or a
 * backquoted regex). assert.star is their own, loaded with the builtins it expects (error, catch, matches, module,
 * _freeze, _floateq); `struct` is predeclared as in their eval_test. Chunks listed in SKIPPED (file:line reason)
 * are not run; the reasons are the list the README points at.
 *   starlark-spec DIR FILE.star   prints "PASS <file> (<n> chunks, <s> skipped)" or FAIL lines, exit 1 on failure */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starlark/starlark.h"

static int errors_in_chunk;
static char first_error[1024];
static const char *assert_src;
static size_t assert_len;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(s);
        return NULL;
    }
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

static bool re_match(const char *pattern, const char *text)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err, &off, NULL);
    if (!re)
        return false;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)text, strlen(text), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc >= 0;
}

static sl_val b_error(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)nkw, (void)kw, (void)data;
    const char *msg = nargs ? sl_tostr(vm, args[0]) : "error";
    if (!errors_in_chunk++)
        snprintf(first_error, sizeof first_error, "%s", msg);
    /* every failed assertion is reported, not only the first: a file of one chunk still shows each */
    printf("  assertion %d: %s\n", errors_in_chunk, msg);
    return sl_none();
}

static sl_val b_catch(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)nkw, (void)kw, (void)data;
    if (nargs != 1)
        sl_fail(vm, "catch: want 1 argument");
    return sl_call_protected(vm, args[0], 0, NULL) ? sl_none() : sl_cstr(vm, sl_error_message(vm));
}

static sl_val b_matches(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)nkw, (void)kw, (void)data;
    if (nargs != 2)
        sl_fail(vm, "matches: want 2 arguments");
    return sl_bool(re_match(sl_str_data(args[0], NULL), sl_str_data(args[1], NULL)));
}

static sl_val b_module(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)data;
    if (nargs != 1)
        sl_fail(vm, "module: got %d arguments, want 1", nargs);
    const char **names = malloc(sizeof(char *) * (size_t)(nkw + 1));
    sl_val *vals = malloc(sizeof(sl_val) * (size_t)(nkw + 1));
    for (int i = 0; i < nkw; i++) {
        names[i] = sl_str_data(kw[2 * i], NULL);
        vals[i] = kw[2 * i + 1];
    }
    sl_val m = sl_module_value(vm, sl_str_data(args[0], NULL), nkw, names, vals);
    free(names);
    free(vals);
    return m;
}

static sl_val b_struct(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)data, (void)args;
    if (nargs)
        sl_fail(vm, "struct: unexpected positional arguments");
    const char **names = malloc(sizeof(char *) * (size_t)(nkw + 1));
    sl_val *vals = malloc(sizeof(sl_val) * (size_t)(nkw + 1));
    for (int i = 0; i < nkw; i++) {
        names[i] = sl_str_data(kw[2 * i], NULL);
        vals[i] = kw[2 * i + 1];
    }
    sl_val m = sl_struct(vm, "struct", nkw, names, vals);
    free(names);
    free(vals);
    return m;
}

static sl_val b_freeze(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)kw, (void)data;
    if (nkw)
        sl_fail(vm, "freeze does not accept keyword arguments");
    if (nargs != 1)
        sl_fail(vm, "freeze got %d arguments, wants 1", nargs);
    sl_freeze(args[0]);
    return args[0]; /* as starlarktest's freeze */
}

static sl_val b_floateq(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)nkw, (void)kw, (void)data;
    if (nargs != 2)
        sl_fail(vm, "floateq: want 2 arguments");
    double x = sl_as_float(args[0]), y = sl_as_float(args[1]);
    if (isnan(x) && isnan(y))
        return sl_bool(true);
    return sl_bool(x == y || nextafter(x, y) == y);
}

/* ---- the Go harness's own values (eval_test.go): test helpers, not part of the product ----
 * hasfields(): a value whose fields may be set (any name but those starting with "no"), frozen with freeze(),
 * hashable (42), and list + hasfields is 42 (so that list += x meets a non-iterable x that defines list + x).
 * fibonacci: an infinite iterable of the Fibonacci numbers. */
static sl_val hf_getattr(sl_vm *vm, sl_val self, const char *name)
{
    return sl_dict_get(vm, (sl_val)sl_host_data(self), sl_cstr(vm, name));
}

static const char *hf_setattr(sl_vm *vm, sl_val self, const char *name, sl_val v)
{
    static char nosuch[256];
    if (sl_frozen(self))
        sl_fail(vm, "cannot set field on a frozen hasfields");
    if (!strncmp(name, "no", 2)) { /* their NoSuchAttrError */
        snprintf(nosuch, sizeof nosuch, "no .%s field", name);
        return nosuch;
    }
    sl_dict_set(vm, (sl_val)sl_host_data(self), sl_cstr(vm, name), v);
    return NULL;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int hf_attrnames(sl_vm *vm, sl_val self, const char ***names)
{
    (void)vm;
    sl_val d = (sl_val)sl_host_data(self);
    size_t n = sl_len(d);
    static const char *buf[256];
    size_t k = 0;
    for (size_t i = 0; k < n && k < 256; i++) {
        sl_val key = sl_dict_key(d, i);
        if (key)
            buf[k++] = sl_str_data(key, NULL);
    }
    qsort(buf, k, sizeof *buf, cmp_str);
    *names = buf;
    return (int)k;
}

static sl_val hf_binary(sl_vm *vm, int op, sl_val x, sl_val y, bool self_left)
{
    (void)y;
    if (op == '+' && !self_left && sl_type_of(x) == SL_LIST)
        return sl_int(vm, 42);
    return NULL;
}

static void hf_freeze(sl_val self) { sl_freeze((sl_val)sl_host_data(self)); }

static const sl_host_type hasfields_type = {"hasfields", hf_getattr, hf_setattr, hf_attrnames, hf_binary, NULL,
                                            hf_freeze, true, 42};

static sl_val b_hasfields(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)args, (void)kw, (void)data;
    if (nargs || nkw)
        sl_fail(vm, "hasfields: unexpected arguments");
    return sl_host_new(vm, &hasfields_type, sl_dict(vm));
}

static bool fib_next(sl_vm *vm, sl_val self, uint64_t i, sl_val *out)
{
    (void)self;
    int64_t a = 0, b = 1;
    if (i > 90)
        sl_fail(vm, "fibonacci: element %llu is past this helper's int64 range", (unsigned long long)i);
    for (uint64_t k = 0; k < i; k++) {
        int64_t t = a + b;
        a = b;
        b = t;
    }
    *out = sl_int(vm, a);
    return true;
}

static const sl_host_type fib_type = {"fib", NULL, NULL, NULL, NULL, fib_next, NULL, false, 0};

static sl_val assert_module(sl_vm *vm)
{
    /* assert.star runs in a VM of its own kind: here, in the same VM, before the chunk */
    sl_vm *avm = vm;
    (void)avm;
    return NULL;
}

static const sl_limits limits = {200000000ull, 1ull << 31, 400, 100000000ull};

/* the assert module: assert.star run in the chunk's VM with its builtins, its global `assert` */
static int load_assert(sl_vm *vm, char *err, size_t errcap)
{
    sl_predeclare(vm, "error", sl_builtin(vm, "error", b_error, NULL));
    sl_predeclare(vm, "catch", sl_builtin(vm, "catch", b_catch, NULL));
    sl_predeclare(vm, "matches", sl_builtin(vm, "matches", b_matches, NULL));
    sl_predeclare(vm, "module", sl_builtin(vm, "module", b_module, NULL));
    sl_predeclare(vm, "_freeze", sl_builtin(vm, "freeze", b_freeze, NULL));
    sl_predeclare(vm, "_floateq", sl_builtin(vm, "floateq", b_floateq, NULL));
    if (sl_exec(vm, "assert.star", assert_src, assert_len) < 0) {
        snprintf(err, errcap, "assert.star: %s", sl_error(vm));
        return -1;
    }
    sl_val names[2];
    const char *n[2] = {"assert", "freeze"};
    names[0] = sl_global(vm, "assert");
    names[1] = sl_global(vm, "freeze");
    sl_add_module(vm, "assert.star", sl_module_value(vm, "assert.star", 2, n, names));
    return 0;
}

typedef struct { int line; char reason[200]; } skip;

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: starlark-spec DIR FILE.star\n");
        return 2;
    }
    (void)assert_module;
    char path[4096];
    snprintf(path, sizeof path, "%s/assert.star", argv[1]);
    char *asrc = slurp(path, &assert_len);
    if (!asrc) {
        printf("FAIL %s: cannot read %s\n", argv[2], path);
        return 1;
    }
    assert_src = asrc;
    snprintf(path, sizeof path, "%s/%s", argv[1], argv[2]);
    size_t len;
    char *src = slurp(path, &len);
    if (!src) {
        printf("FAIL %s: cannot read %s\n", argv[2], path);
        return 1;
    }
    /* skips for this file */
    skip skips[256];
    int nskips = 0;
    snprintf(path, sizeof path, "%s/SKIPPED", argv[1]);
    size_t slen;
    char *sk = slurp(path, &slen);
    if (sk) {
        size_t flen = strlen(argv[2]);
        for (char *line = strtok(sk, "\n"); line; line = strtok(NULL, "\n")) {
            if (!strncmp(line, argv[2], flen) && line[flen] == ':' && nskips < 256) {
                skips[nskips].line = atoi(line + flen + 1);
                char *r = strchr(line + flen + 1, ' ');
                snprintf(skips[nskips].reason, sizeof skips[nskips].reason, "%s", r ? r + 1 : "");
                nskips++;
            }
        }
        free(sk);
    }
    int chunks = 0, skipped = 0, failed = 0, assertions_skipped = 0;
    bool parse_only = !strcmp(argv[2], "syntax-errors.star");
    int line = 1;
    char *p = src, *end = src + len;
    while (p < end) {
        /* the chunk: up to a line that is exactly "---" */
        char *q = p;
        int first_line = line, lines = 0;
        for (;;) {
            char *nl = memchr(q, '\n', (size_t)(end - q));
            char *le = nl ? nl : end;
            if (le - q == 3 && !memcmp(q, "---", 3))
                break;
            lines++;
            if (!nl) {
                q = end;
                break;
            }
            q = nl + 1;
        }
        char *chunk_end = q;
        /* go's chunkedfile splits at "\n---\n": a chunk followed by "---" does not end in its line break (an
         * error at the end of file is then on the chunk's last line, syntax-errors.star) */
        char *text_end = chunk_end < end && chunk_end > p && chunk_end[-1] == '\n' ? chunk_end - 1 : chunk_end;
        /* padded with newlines so that lines are the file's */
        size_t clen = (size_t)(first_line - 1) + (size_t)(text_end - p);
        char *chunk = malloc(clen + 1);
        memset(chunk, '\n', (size_t)(first_line - 1));
        memcpy(chunk + first_line - 1, p, (size_t)(text_end - p));
        chunk[clen] = 0;
        /* the expected error */
        int want_line = 0;
        char want[1024] = "";
        int l = first_line;
        for (char *s = p; s < chunk_end; l++) {
            char *nl = memchr(s, '\n', (size_t)(chunk_end - s));
            char *le = nl ? nl : chunk_end;
            char *m = NULL;
            for (char *t = s; t + 3 <= le; t++)
                if (!memcmp(t, "###", 3)) {
                    m = t;
                    break;
                }
            if (m) {
                char *t = m + 3;
                while (t < le && *t == ' ')
                    t++;
                if (t < le && (*t == '"' || *t == '`')) {
                    char qc = *t++;
                    char *e = memchr(t, qc, (size_t)(le - t));
                    if (e) {
                        want_line = l;
                        snprintf(want, sizeof want, "%.*s", (int)(e - t), t);
                        if (qc == '"') { /* a Go string literal: \\ stands for \ */
                            char *w = want;
                            for (char *r = want; *r; r++) {
                                if (*r == '\\' && r[1])
                                    r++;
                                *w++ = *r;
                            }
                            *w = 0;
                        }
                    }
                }
            }
            if (!nl)
                break;
            s = nl + 1;
        }
        /* A SKIPPED line at a chunk's first line skips the chunk; one further in skips that statement alone (up to
         * where its brackets close), so that one n/a assertion does not hide the rest of a file of one chunk. */
        bool skip_it = false;
        for (int i = 0; i < nskips; i++) {
            if (skips[i].line < first_line || skips[i].line >= first_line + lines)
                continue;
            if (skips[i].line == first_line) {
                skip_it = true;
                continue;
            }
            char *s = chunk;
            for (int k = 1; k < skips[i].line && s; k++) {
                s = strchr(s, '\n');
                s = s ? s + 1 : NULL;
            }
            int open = 0;
            for (; s && *s; s++) {
                if (*s == '(' || *s == '[' || *s == '{')
                    open++;
                else if (*s == ')' || *s == ']' || *s == '}')
                    open--;
                else if (*s == '\n') {
                    if (open <= 0)
                        break;
                    continue;
                }
                *s = ' ';
            }
            assertions_skipped++;
        }
        chunks++;
        if (skip_it)
            skipped++;
        else {
            sl_vm *vm = sl_new(&limits, 0x5eed);
            char why[2048] = "";
            errors_in_chunk = 0;
            first_error[0] = 0;
            if (load_assert(vm, why, sizeof why) == 0) {
                sl_predeclare(vm, "struct", sl_builtin(vm, "struct", b_struct, NULL));
                sl_predeclare(vm, "hasfields", sl_builtin(vm, "hasfields", b_hasfields, NULL));
                sl_predeclare(vm, "fibonacci", sl_host_new(vm, &fib_type, NULL));
                /* go.starlark.net runs syntax-errors.star through its parser alone (syntax's TestParseErrors):
                 * names are not resolved and nothing runs */
                int rc = parse_only ? sl_check(vm, argv[2], chunk, clen, false) : sl_exec(vm, argv[2], chunk, clen);
                if (rc < 0) {
                    const char *e = sl_error(vm);
                    /* "file:line:col: message" */
                    const char *c1 = strchr(e + strlen(argv[2]), ':');
                    int eline = c1 ? atoi(c1 + 1) : 0;
                    const char *msg = c1 ? strchr(c1 + 1, ':') : NULL;
                    msg = msg ? strchr(msg + 1, ':') : NULL;
                    msg = msg ? msg + 2 : e;
                    if (!want_line)
                        snprintf(why, sizeof why, "unexpected error: %s", e);
                    else if (eline != want_line)
                        snprintf(why, sizeof why, "error at line %d, want line %d: %s", eline, want_line, e);
                    else if (!re_match(want, msg))
                        snprintf(why, sizeof why, "error %s does not match %s", e, want);
                } else if (want_line)
                    snprintf(why, sizeof why, "line %d: no error, want one matching %s", want_line, want);
                if (!why[0] && errors_in_chunk)
                    snprintf(why, sizeof why, "%d assertion(s) failed, first: %s", errors_in_chunk, first_error);
            }
            if (why[0]) {
                failed++;
                printf("FAIL %s:%d: %s\n", argv[2], first_line, why);
            }
            sl_free(vm);
        }
        free(chunk);
        line = first_line + lines + 1;
        p = chunk_end < end ? chunk_end + 4 : end;
        if (p > end)
            p = end;
    }
    if (!failed)
        printf("PASS %s (%d chunks, %d passed, %d skipped%s)\n", argv[2], chunks, chunks - skipped, skipped,
               assertions_skipped ? ", some n/a statements left out" : "");
    else
        printf("FAIL %s: %d of %d chunks failed (%d skipped)\n", argv[2], failed, chunks, skipped);
    free(src);
    free(asrc);
    return failed ? 1 : 0;
}
