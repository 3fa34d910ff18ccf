/* "did you mean": the nearest of some names to a misspelt one, for the messages go.starlark.net words that way
 * (undefined names, unknown keyword arguments, missing fields and methods, load()ed names). Case and underscores
 * are ignored, and a name is offered only when fewer than half of its letters differ (edit distance). */
#include "starlark/internal.h"

#include <ctype.h>
#include <stdlib.h>

/* the name without underscores, lower case, into out (at most cap-1 bytes) */
static size_t fold(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if (*s != '_')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = 0;
    return n;
}

/* Levenshtein distance of a and b (bytes), or `limit` when it is at least that */
static size_t distance(const char *a, size_t na, const char *b, size_t nb, size_t limit)
{
    size_t row[65];
    if (nb > 64 || na > 64)
        return limit;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t d = diag + (a[i - 1] != b[j - 1]);
            if (row[j - 1] + 1 < d)
                d = row[j - 1] + 1;
            if (up + 1 < d)
                d = up + 1;
            row[j] = d;
            diag = up;
            if (d < best)
                best = d;
        }
        if (best >= limit)
            return limit;
    }
    return row[nb] < limit ? row[nb] : limit;
}

const char *sl_nearest(const char *x, const char *const *cands, int n)
{
    char fx[65], fc[65];
    size_t nx = fold(x, fx, sizeof fx);
    size_t best_d = (nx + 1) / 2;
    const char *best = NULL;
    for (int i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        size_t nc = fold(cands[i], fc, sizeof fc);
        size_t d = distance(fx, nx, fc, nc, best_d);
        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    return best;
}
