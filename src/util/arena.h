/* Bump allocator: every tree, string and list of one render lives in one arena and dies with it. */
#ifndef CMP_UTIL_ARENA_H
#define CMP_UTIL_ARENA_H
#include <stddef.h>

typedef struct arena arena;

arena *arena_new(void);
void arena_free(arena *a);
/* Zeroed memory, aligned for any object. Aborts on out-of-memory: there is no useful recovery mid-render. */
void *arena_alloc(arena *a, size_t size);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes requested from the system so far (for limits and the benchmark). */
size_t arena_footprint(const arena *a);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
#endif
