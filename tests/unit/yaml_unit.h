/* What the yaml tests share: one arena and string table per test file, made on first use and kept for the whole run,
 * since the trees a test compares must outlive the loads that made them. */
#ifndef CMP_TEST_YAML_UNIT_H
#define CMP_TEST_YAML_UNIT_H
#include "util/arena.h"
#include "yaml/load.h"

static arena *A;
static strtab *ST;

static inline void yaml_unit_init(void)
{
    if (!A) {
        A = arena_new();
        ST = strtab_new(A);
    }
}
#endif
