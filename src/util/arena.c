#define _GNU_SOURCE /* malloc_usable_size */
#include "util/arena.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/child.h"
#include "util/diag.h"

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

/* The memory budget: one count for the process, here rather than in a context. Every allocation of the render's
 * data passes through this file (arena chunks, xmalloc and the buffers built on it, the strtab, the loader's
 * stacks, pcre2's heap), from a hundred call sites in every module, most of which have no context to carry a
 * counter (buf, strtab); and a process does one render (Argo CD starts one per request), so the process's count is
 * the render's. Only the limit is set from outside, once, from the operator's settings (main, through
 * mem_budget_set). The heap's own bytes are counted (malloc_usable_size: the size asked for under ASan, a little
 * more with glibc's malloc), so a pointer is given back with what it took, whatever its owner remembers.
 * Why counting and not RLIMIT_AS: an address-space limit fails malloc deep inside libfyaml or pcre2, whose errors
 * would then have to be told from the input's, counts reservations that hold no memory (ASan's shadow is terabytes,
 * so the two builds would disagree), and cannot say what ran out or leave room for a child. */
static struct {
    size_t used, peak, limit;
    size_t watermark;     /* the smaller of peak and limit (peak without a limit) */
    size_t named;         /* bytes of the hold that for_what names */
    const char *for_what; /* what holds them: a child while it runs */
    const char *reading;  /* the file the loader is reading */
    char why[400];
} mem;

/* An abort path: no caller checks an allocation, so there is nothing to return or record for main to print; the
 * one line goes out here (tests/harness layers lists it), then children are killed and scratch removed as the
 * deadline does, and the process ends without flushing stdio (nothing may reach stdout). */
static void end_process(const char *line, size_t len)
{
    if (write(STDERR_FILENO, line, len) < 0) {
    }
    child_abort_all();
    _exit(1);
}

static void out_of_memory(void)
{
    static const char line[] = "cmp-generate: out of memory\n";
    end_process(line, sizeof line - 1);
}

/* Text of ours and the package's (a step's label, a chart's name) made fit for the one line. */
static size_t put_text(char *out, size_t at, size_t cap, const char *s)
{
    for (; s && *s && at + 1 < cap; s++)
        out[at++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
    out[at] = 0;
    return at;
}

static void over_budget(void)
{
    char line[1200], num[64];
    size_t n = put_text(line, 0, sizeof line, "cmp-generate: ");
    if (mem.reading && *mem.reading) {
        n = put_text(line, n, sizeof line, mem.reading);
        n = put_text(line, n, sizeof line, ": ");
    }
    const char *step = diag_step();
    if (step && *step) {
        n = put_text(line, n, sizeof line, step);
        n = put_text(line, n, sizeof line, ": ");
    }
    snprintf(num, sizeof num, "%zu", mem.limit >> 20);
    n = put_text(line, n, sizeof line, "the render needs more than ");
    n = put_text(line, n, sizeof line, num);
    n = put_text(line, n, sizeof line, " MB of memory (");
    n = put_text(line, n, sizeof line, mem.why);
    if (mem.for_what && mem.named) {
        snprintf(num, sizeof num, "%zu", mem.named >> 20);
        n = put_text(line, n, sizeof line, "; ");
        n = put_text(line, n, sizeof line, num);
        n = put_text(line, n, sizeof line, " MB of it are held for ");
        n = put_text(line, n, sizeof line, mem.for_what);
        n = put_text(line, n, sizeof line, " while it runs");
    }
    n = put_text(line, n, sizeof line, ")\n");
    if (line[n - 1] != '\n')
        line[n - 1] = '\n'; /* cut: still one line */
    end_process(line, n);
}

/* Grows the peak, or ends the process past the limit; then the next count worth a look. */
static void watch(void)
{
    if (mem.used > mem.peak)
        mem.peak = mem.used;
    if (mem.limit && mem.used > mem.limit)
        over_budget();
    mem.watermark = mem.limit && mem.limit < mem.peak ? mem.limit : mem.peak;
}

/* n more bytes: past the limit, the end. Counting costs an addition and one comparison: only a count past the peak
 * or the limit (the watermark) needs a look. */
static inline void take(size_t n)
{
    mem.used += n;
    if (mem.used < n) { /* a size no memory holds (the sum wrapped) */
        mem.used = SIZE_MAX;
        mem.limit ? over_budget() : out_of_memory();
    }
    if (mem.used > mem.watermark)
        watch();
}

static inline void give(size_t n)
{
    mem.used -= n < mem.used ? n : mem.used;
}

void mem_budget_set(size_t limit, const char *why)
{
    mem.limit = limit;
    snprintf(mem.why, sizeof mem.why, "%s", why ? why : "");
    watch();
}

size_t mem_budget_limit(void)
{
    return mem.limit;
}

size_t mem_used(void)
{
    return mem.used;
}

size_t mem_peak(void)
{
    return mem.peak;
}

size_t mem_free(void)
{
    if (!mem.limit)
        return SIZE_MAX;
    return mem.limit > mem.used ? mem.limit - mem.used : 0;
}

const char *mem_reading(const char *file)
{
    const char *before = mem.reading;
    mem.reading = file;
    return before;
}

void mem_hold(size_t n, const char *for_what)
{
    if (for_what)
        mem.for_what = for_what, mem.named = n;
    take(n);
}

void mem_release(size_t n, const char *for_what)
{
    if (for_what && for_what == mem.for_what)
        mem.for_what = NULL, mem.named = 0;
    give(n);
}

/* The request is counted before malloc sees it, so a size past the budget is the budget's error, not malloc's;
 * then what the heap really gave. */
void *xmalloc(size_t n)
{
    if (!n)
        n = 1;
    take(n);
    void *p = malloc(n);
    if (!p)
        out_of_memory();
    take(malloc_usable_size(p) - n);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    if (!n)
        n = 1;
    size_t old = p ? malloc_usable_size(p) : 0;
    take(n); /* the old block and the new one may both be there for a moment */
    void *q = realloc(p, n);
    if (!q)
        out_of_memory();
    give(old);
    take(malloc_usable_size(q) - n);
    return q;
}

void *xcalloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        mem.limit ? over_budget() : out_of_memory();
    size_t total = n * size;
    if (!total)
        total = 1;
    take(total);
    void *p = calloc(total, 1);
    if (!p)
        out_of_memory();
    take(malloc_usable_size(p) - total);
    return p;
}

void xfree(void *p)
{
    if (!p)
        return;
    give(malloc_usable_size(p));
    free(p);
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void *mem_lib_malloc(size_t n, void *unused)
{
    (void)unused;
    return xmalloc(n);
}

void mem_lib_free(void *p, void *unused)
{
    (void)unused;
    xfree(p);
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
        give(sizeof *c + c->size);
        free(c);
    }
    xfree(a);
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
        take(sizeof *c + want);
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
    /* a text needs no alignment: the 16-byte rounding cost the interned values of a dense package 8 bytes each */
    char *p = bump(a, n + 1, 1);
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
