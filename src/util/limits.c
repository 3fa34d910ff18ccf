#include "util/limits.h"

const limits limits_default = {
    .max_file_bytes = 64u << 20,
    .max_total_bytes = 512u << 20,
    .max_objects = 500000,
    .max_output_bytes = 100u << 20,
    .child_timeout_s = 30,
    .max_regex_steps = 1000000,
    .max_glob_steps = 100000000,
    .max_chart_files = 10000,
    .max_chart_bytes = (size_t)100 << 20,
    .starlark_max_steps = 100000000,
    .starlark_max_memory_mb = 512,
    .starlark_max_depth = 1000,
    .starlark_max_len = (size_t)64 << 20,
    .yaml = {.max_depth = 512, .max_alias_nodes = 1000000},
};
