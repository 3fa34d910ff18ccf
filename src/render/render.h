/* The render, as data flowing one way: discover, load, run functions, annotate, emit. */
#ifndef CMP_RENDER_RENDER_H
#define CMP_RENDER_RENDER_H
#include <stdbool.h>

#include "util/buf.h"

typedef struct render_opts {
    const char *dir;
    bool json;        /* one compact JSON object per line instead of YAML documents */
    bool keep_config; /* keep configPath objects in the output */
} render_opts;

/* Renders into out; on failure out holds nothing useful and diag has the message. */
int render(const render_opts *o, buf *out);
#endif
