/* What a yaml test works in: an arena and a string table of its file, made fresh before each test (the previous
 * test's freed) by the harness through test_file_setup, so no test sees what another one loaded or depends on it
 * having run first; the trees a test compares outlive the loads that made them. */
#ifndef CMP_TEST_YAML_UNIT_H
#define CMP_TEST_YAML_UNIT_H
#include "check.h"
#include "util/arena.h"
#include "yaml/load.h"

static arena *A;
static strtab *ST;

static void yaml_unit_fresh(void)
{
    if (A) {
        strtab_release(ST);
        arena_free(A);
    }
    A = arena_new();
    ST = strtab_new(A);
}

__attribute__((constructor)) static void yaml_unit_setup(void)
{
    test_file_setup = yaml_unit_fresh;
}
#endif
