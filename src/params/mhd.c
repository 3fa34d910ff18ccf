/* The loader behind params/mhd.h. */
#define PARAMS_MHD_LOADER
#include "params/mhd.h"

#include <dlfcn.h>
#include <stdio.h>

#include "util/diag.h"

#define MHD_FILE "libmicrohttpd.so.12"

params_mhd params_mhd_lib;

int params_mhd_open(void)
{
    /* RTLD_NOW: a library that lacks a symbol fails here, with a message, not under the first request */
    void *h = dlopen(MHD_FILE, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        return fail(NULL, 0, "serve-params needs %s (Debian: libmicrohttpd12), which cannot be loaded: %s", MHD_FILE,
                    e ? e : "not found");
    }
    params_mhd t;
#define PARAMS_MHD_LOAD(f)                                                                                             \
    if (!(t.f = (__typeof__(t.f))dlsym(h, #f))) {                                                                      \
        dlclose(h);                                                                                                    \
        return fail(NULL, 0, "serve-params: %s has no %s", MHD_FILE, #f);                                              \
    }
    PARAMS_MHD_FUNCTIONS(PARAMS_MHD_LOAD)
#undef PARAMS_MHD_LOAD
    params_mhd_lib = t;
    return 0;
}
