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

/* Memory from the C heap, counted against the memory budget below like an arena's: what xmalloc, xrealloc or
 * xstrdup gave is given back with xfree (free() would leave it counted). Abort on out-of-memory, as the arena does. */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Zeroed, as calloc (the pages of a large one are zero without being touched). */
void *xcalloc(size_t n, size_t size);
void xfree(void *p);

/* The memory budget of the process's work (a render: CMP_MAX_MEMORY_MB). Every arena chunk and every x-allocation
 * counts while it is held, as do pcre2's allocations (functions/krm/regex.c), the loader's reservation for libfyaml's
 * (yaml/load.c) and a running child's memory limit when it comes out of the budget (engine/run.c). Going
 * past the limit ends the process like the deadline does: one line on stderr, "cmp-generate: [<file>: ]<step>: the
 * render needs more than N MB of memory (<why>)", children killed, scratch removed, exit 1, nothing on stdout (the output
 * reaches stdout only once the render cannot fail any more).
 *
 * why says where the limit comes from and how the operator raises it (at most 400 bytes are kept). limit 0: none
 * (the default until it is set). */
void mem_budget_set(size_t limit, const char *why);
size_t mem_budget_limit(void);
/* Bytes counted now, the most ever counted, and what the limit leaves free now (SIZE_MAX without a limit). */
size_t mem_used(void);
size_t mem_peak(void);
size_t mem_free(void);
/* Counts n bytes that are not allocated here (a reservation for a library's allocations, a child's memory limit):
 * past the limit, the process ends as above. for_what names them in that error while they are held (NULL: say
 * nothing; the pointer must outlive the hold). mem_release gives them back. */
void mem_hold(size_t n, const char *for_what);
void mem_release(size_t n, const char *for_what);
/* The file being read while its tree grows (the loader), for the error's "<file>: " (NULL: none); returns the one
 * before, to be put back. The pointer must stay valid until then. */
const char *mem_reading(const char *file);
/* For libraries that take an allocator (pcre2): counted like xmalloc, and NULL never returned. */
void *mem_lib_malloc(size_t n, void *unused);
void mem_lib_free(void *p, void *unused);
#endif
