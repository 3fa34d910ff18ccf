#include "functions/krm/regex.h"

#include "util/limits.h"

/* pcre2 allocates through the memory budget's counted malloc (util/arena.h): a match's backtracking frames (up to the
 * depth limit), compiled patterns and match data count like the render's own memory. */
static pcre2_general_context *general(void)
{
    static pcre2_general_context *g;
    if (!g)
        g = pcre2_general_context_create(mem_lib_malloc, mem_lib_free, NULL);
    return g;
}

static pcre2_compile_context *compile_context(void)
{
    static pcre2_compile_context *cc;
    if (!cc)
        cc = pcre2_compile_context_create(general());
    return cc;
}

pcre2_code *regex_compile(const char *pattern, int *errcode, PCRE2_SIZE *erroffset)
{
    return pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, errcode,
                         erroffset, compile_context());
}

pcre2_match_data *regex_match_data(const pcre2_code *re)
{
    return pcre2_match_data_create_from_pattern(re, general());
}

/* The depth limit bounds the backtracking frames kept at once, so the memory of one match; a tenth of the step
 * limit lets ordinary patterns through over long values while a runaway pattern stops within milliseconds. */
static pcre2_match_context *context(size_t max_steps)
{
    static pcre2_match_context *ctx;
    static size_t steps;
    if (!ctx || steps != max_steps) {
        if (!ctx)
            ctx = pcre2_match_context_create(general());
        steps = max_steps;
        uint32_t m = steps > UINT32_MAX ? UINT32_MAX : (uint32_t)steps;
        pcre2_set_match_limit(ctx, m);
        pcre2_set_depth_limit(ctx, m / 10 ? m / 10 : 1);
    }
    return ctx;
}

int regex_search(const limits *L, const pcre2_code *re, pcre2_match_data *md, const char *s, size_t n)
{
    pcre2_match_data *own = md ? NULL : pcre2_match_data_create(1, general());
    int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md ? md : own, context(limits_or_default(L)->max_regex_steps));
    pcre2_match_data_free(own);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    /* 0 means the ovector was too small for every group, which is still a match */
    return rc == 0 ? 1 : rc;
}

const char *regex_failure(const limits *L, arena *a, int rc)
{
    size_t steps = limits_or_default(L)->max_regex_steps;
    switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT:
        return arena_printf(a, "hit the regex match limit (%zu steps; raise it with CMP_MAX_REGEX_STEPS)", steps);
    case PCRE2_ERROR_DEPTHLIMIT:
        return arena_printf(a, "hit the regex depth limit (%zu nested backtracking points, a tenth of "
                            "CMP_MAX_REGEX_STEPS)", steps / 10 ? steps / 10 : 1);
    case PCRE2_ERROR_HEAPLIMIT:
        return "hit the regex memory limit (pcre2's heap limit)";
    default: {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
            return arena_printf(a, "failed (pcre2 error %d)", rc);
        return arena_printf(a, "failed: %s", (const char *)msg);
    }
    }
}
