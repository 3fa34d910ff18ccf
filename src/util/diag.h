/* The one error of a render. The first failure is kept; main prints it as a single line and exits 1.
 * Format: "cmp-generate: <file>:<line>: <step>: <message>" with the parts that are known. */
#ifndef CMP_UTIL_DIAG_H
#define CMP_UTIL_DIAG_H
#include <stdbool.h>

/* The step now running ("read", "parse", "pipeline.mutators[1] set-labels", ...). Not copied: pass a string that outlives the step. */
void diag_set_step(const char *step);
const char *diag_step(void);
/* Records the error (if none yet) and returns -1, so callers can write `return fail(...)`. line <= 0 omits the line. */
int fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool diag_failed(void);
const char *diag_message(void);
void diag_reset(void);
/* Forgets a recorded error but keeps the step: for callers that try one reading and fall back to another. */
void diag_clear(void);
#endif
