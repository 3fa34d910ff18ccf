/* The loader behind git/libgit2.h. */
#define GITSRC_LIBGIT2_LOADER
#include "git/libgit2.h"

#include <dlfcn.h>
#include <git2/sys/alloc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/arena.h"
#include "util/diag.h"

#define LIBGIT2_FILE "libgit2.so." LIBGIT2_SOVERSION

gitsrc_libgit2 gitsrc_lib;

static bool tried, loaded;
static char why[256]; /* the first attempt's failure, repeated to later callers */

/* libgit2's memory, counted against the render's budget as ours is (util/arena.h): the package-revision stamp walks
 * a history the author wrote, and what libgit2 holds while it does grows with it (a commit is inflated whole, its
 * message copied; the object cache keeps up to 256 MB of small objects by default). Uncounted, a 150 MB commit
 * message or 120,000 commits of 3.9 KB took the sidecar past its container's limit (308 and 318 MB RSS, exit 0;
 * the kernel's OOM killer in a 256Mi container). Counted, going past the budget is its one line, as anywhere else;
 * and the cache and the pack windows are kept to a share of the budget (gitsrc_open), so that a long history is
 * walked within it rather than filling it. Installed before the first git_libgit2_init, so that nothing libgit2
 * holds was allocated by another allocator. None of these returns NULL for want of memory (the budget or malloc's
 * failure ends the process); NULL only for a size that does not fit in a size_t, which libgit2 reports as an error. */
static void *lg_malloc(size_t n, const char *file, int line)
{
    (void)file, (void)line;
    return xmalloc(n);
}

static void *lg_calloc(size_t nelem, size_t elsize, const char *file, int line)
{
    (void)file, (void)line;
    return xcalloc(nelem, elsize);
}

static char *lg_substrdup(const char *str, size_t n, const char *file, int line)
{
    (void)file, (void)line;
    if (n == SIZE_MAX)
        return NULL;
    char *p = xmalloc(n + 1);
    memcpy(p, str, n);
    p[n] = 0;
    return p;
}

static char *lg_strdup(const char *str, const char *file, int line)
{
    return lg_substrdup(str, strlen(str), file, line);
}

static char *lg_strndup(const char *str, size_t n, const char *file, int line)
{
    return lg_substrdup(str, strnlen(str, n), file, line);
}

static void *lg_realloc(void *ptr, size_t size, const char *file, int line)
{
    (void)file, (void)line;
    return xrealloc(ptr, size);
}

static void *lg_reallocarray(void *ptr, size_t nelem, size_t elsize, const char *file, int line)
{
    if (elsize && nelem > SIZE_MAX / elsize)
        return NULL;
    return lg_realloc(ptr, nelem * elsize, file, line);
}

static void *lg_mallocarray(size_t nelem, size_t elsize, const char *file, int line)
{
    return lg_reallocarray(NULL, nelem, elsize, file, line);
}

static void lg_free(void *ptr)
{
    xfree(ptr);
}

static git_allocator counted = {
    .gmalloc = lg_malloc,
    .gcalloc = lg_calloc,
    .gstrdup = lg_strdup,
    .gstrndup = lg_strndup,
    .gsubstrdup = lg_substrdup,
    .grealloc = lg_realloc,
    .greallocarray = lg_reallocarray,
    .gmallocarray = lg_mallocarray,
    .gfree = lg_free,
};

static void load(void)
{
    tried = true;
    /* RTLD_NOW: a library that lacks a symbol it needs fails here, with a message, not halfway through a fetch */
    void *h = dlopen(LIBGIT2_FILE, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : LIBGIT2_FILE ": cannot load");
        return;
    }
    gitsrc_libgit2 t;
#define GITSRC_LOAD(f)                                                                                                 \
    if (!(t.f = (__typeof__(t.f))dlsym(h, #f))) {                                                                      \
        snprintf(why, sizeof why, "%s has no %s", LIBGIT2_FILE, #f);                                                   \
        dlclose(h);                                                                                                    \
        return;                                                                                                        \
    }
    GITSRC_LIBGIT2_FUNCTIONS(GITSRC_LOAD)
#undef GITSRC_LOAD
    /* Fail closed: a library that keeps its own allocator would hold memory the budget does not see. */
    if (t.git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, &counted) < 0) {
        snprintf(why, sizeof why, "%s refuses an allocator (GIT_OPT_SET_ALLOCATOR)", LIBGIT2_FILE);
        dlclose(h);
        return;
    }
    gitsrc_lib = t;
    loaded = true;
}

int gitsrc_open(const char *file, const char *what)
{
    if (!tried)
        load();
    if (!loaded)
        return fail(file, 0, "%s%sneeds libgit2 %s, which cannot be loaded: %s", what ? what : "", what ? ": " : "",
                    LIBGIT2_SOVERSION, why);
    gitsrc_lib.git_libgit2_init();
    /* Caches within the budget (none set: libgit2's defaults). The object cache (256 MB by default) and the pack
     * windows (1 GB each, 8 GB mapped on 64-bit) are what libgit2 keeps for speed, not what a walk needs: a 16th of
     * the budget for the cache, whose entries are counted as they are allocated (a few MB keep the trees a walk
     * revisits), an 8th for mapped pack windows, which are file pages the budget does not count but RSS does. */
    size_t budget = mem_budget_limit();
    if (budget) {
        size_t cache = budget / 16, window = budget / 16 > (1u << 20) ? budget / 16 : (1u << 20);
        gitsrc_lib.git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)cache);
        gitsrc_lib.git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, window);
        gitsrc_lib.git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, 2 * window);
    }
    return 0;
}

void gitsrc_close(void)
{
    gitsrc_lib.git_libgit2_shutdown();
}
