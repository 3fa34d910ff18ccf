#include "util/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chunk {
    struct chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

/* A recycled 16-byte unit, linked through its first bytes. */
struct spare {
    struct spare *next;
};

struct arena {
    struct chunk *head;
    size_t footprint;
    struct spare *spare16; /* units given back by arena_recycle */
};

enum { CHUNK_MIN = 256 * 1024 };

/* An abort path prints its own line (tests/harness layers lists them): no caller checks an allocation, so there is
 * nothing to return or record for main to print; the process ends here. */
static void out_of_memory(void)
{
    fputs("cmp-generate: out of memory\n", stderr);
    exit(1);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory();
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

arena *arena_new(void)
{
    arena *a = xmalloc(sizeof *a);
    a->head = NULL;
    a->footprint = 0;
    a->spare16 = NULL;
    return a;
}

void arena_free(arena *a)
{
    if (!a)
        return;
    for (struct chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

/* size bytes aligned to align (8 or 16) */
static void *bump(arena *a, size_t size, size_t align)
{
    struct chunk *c = a->head;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || c->size < at || c->size - at < size) {
        /* Chunks double with use so that the chunk count stays logarithmic in the input size. */
        size_t want = CHUNK_MIN;
        if (a->footprint / 4 > want)
            want = a->footprint / 4;
        if (want > 16u * 1024 * 1024)
            want = 16u * 1024 * 1024;
        if (want < size)
            want = size;
        c = malloc(sizeof *c + want);
        if (!c)
            out_of_memory();
        c->size = want;
        c->used = 0;
        c->next = a->head;
        a->head = c;
        a->footprint += want;
        at = 0;
    }
    void *p = c->data + at;
    c->used = at + size;
    memset(p, 0, size);
    return p;
}

void *arena_alloc(arena *a, size_t size)
{
    return bump(a, (size + 15) & ~(size_t)15, 16);
}

void *arena_alloc8(arena *a, size_t size)
{
    return bump(a, (size + 7) & ~(size_t)7, 8);
}

void *arena_alloc16(arena *a)
{
    struct spare *u = a->spare16;
    if (!u)
        return arena_alloc(a, 16);
    a->spare16 = u->next;
    memset(u, 0, 16);
    return u;
}

void arena_recycle(arena *a, void *p, size_t size)
{
    uintptr_t at = ((uintptr_t)p + 7) & ~(uintptr_t)7, end = (uintptr_t)p + size;
    for (; end >= at + 16; at += 16) {
        struct spare *u = (struct spare *)at;
        u->next = a->spare16;
        a->spare16 = u;
    }
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

size_t arena_footprint(const arena *a)
{
    return a->footprint;
}
