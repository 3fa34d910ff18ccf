/* What the function tests share: resources from YAML text, and one function run over them with a config. */
#ifndef CMP_TEST_FIXTURE_H
#define CMP_TEST_FIXTURE_H
#include "functions/function.h"

struct fx {
    arena *a;
    strtab *st;
    rlist items;
    fn_results results;
    const char *file; /* path given to the resources being added */
};

/* Starts a fixture; yaml (may be NULL) becomes resources of file r.yaml. */
void fx_open(struct fx *f, const char *yaml);
/* Adds the documents of yaml as resources of file. */
void fx_add(struct fx *f, const char *file, const char *yaml);
/* Frees everything and forgets any recorded error. */
void fx_close(struct fx *f);
/* Runs the built-in fn with config (YAML text, NULL for none) read as if from config_file. */
int fx_apply(struct fx *f, const char *fn, const char *config, const char *config_file);
#endif
