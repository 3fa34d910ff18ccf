/* --results-dir: what the functions reported, as kpt's FunctionResultList (results.yaml). */
#ifndef CMP_RENDER_RESULTS_H
#define CMP_RENDER_RESULTS_H
#include "pipeline/executor.h"

/* Writes dir/results.yaml (creating dir), replacing it whole. exit_code is the render's. fail()s and returns -1 when
 * it cannot. */
int write_results(const run_ctx *R, const char *dir, int exit_code);
#endif
