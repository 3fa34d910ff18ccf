/* The loader behind git/libgit2.h. */
#define GITSRC_LIBGIT2_LOADER
#include "git/libgit2.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/diag.h"

#define LIBGIT2_FILE "libgit2.so." LIBGIT2_SOVERSION

gitsrc_libgit2 gitsrc_lib;

static bool tried, loaded;
static char why[256]; /* the first attempt's failure, repeated to later callers */

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
    return 0;
}

void gitsrc_close(void)
{
    gitsrc_lib.git_libgit2_shutdown();
}
