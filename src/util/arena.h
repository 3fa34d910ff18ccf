/* Bump allocator: every tree, string and list of one render lives in one arena and dies with it. */
#ifndef CMP_UTIL_ARENA_H
#define CMP_UTIL_ARENA_H
#include <stddef.h>

typedef struct arena arena;

arena *arena_new(void);
void arena_free(arena *a);
/* Zeroed memory, aligned for any object. Aborts on out-of-memory: there is no useful recovery mid-render. */
void *arena_alloc(arena *a, size_t size);
/* Zeroed memory aligned for a pointer (not for any object): for records of pointers and integers allocated by the
 * hundred thousand (entry arrays, 8 + 16k bytes), which the 16-byte rounding would otherwise pad. */
void *arena_alloc8(arena *a, size_t size);
/* 16 zeroed bytes aligned for a pointer, for small records allocated by the million (tree nodes): from memory given
 * back with arena_recycle when there is some, else new. */
void *arena_alloc16(arena *a);
/* Gives back [p, p + size), which the caller will not use again (an entry array replaced by a bigger one), to be
 * handed out by arena_alloc16: what the functions add to a tree then fills what its growing arrays left behind. */
void arena_recycle(arena *a, void *p, size_t size);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes requested from the system so far (for limits and the benchmark). */
size_t arena_footprint(const arena *a);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
#endif
