/* The VM's memory and budgets. Everything a script makes comes from the VM's chunks and is counted against the
 * memory budget (there is no collector: a script's garbage counts too, which only makes the bound stricter); the
 * VM frees it all at once. Step and size budgets live here too, so every limit is checked and worded in one place:
 * each error names the limit and its operator variable, and the running line is added by the caller of fail. */
#include <stdio.h>
#include <stdlib.h>

#include "starlark/internal.h"
#include "util/arena.h"

struct sl_chunk {
    sl_chunk *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

enum { CHUNK = 64 * 1024 };

static void *new_chunk(sl_vm *vm, size_t size)
{
    sl_chunk *c = xmalloc(sizeof *c + size);
    c->next = vm->chunks;
    c->size = size;
    vm->chunks = c;
    return c->data;
}

void *vm_alloc_raw(sl_vm *vm, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    vm->mem += n;
    if (vm->mem > vm->lim.max_memory)
        sl_fail(vm, "the script used more than %llu MB of memory (CMP_STARLARK_MAX_MEMORY_MB)",
                (unsigned long long)(vm->lim.max_memory >> 20));
    if (n > CHUNK / 4)
        return new_chunk(vm, n);
    if ((size_t)(vm->end - vm->cur) < n) {
        vm->cur = new_chunk(vm, CHUNK);
        vm->end = vm->cur + CHUNK;
    }
    void *p = vm->cur;
    vm->cur += n;
    return p;
}

void *vm_alloc(sl_vm *vm, size_t n)
{
    void *p = vm_alloc_raw(vm, n);
    memset(p, 0, n);
    return p;
}

char *vm_strdup(sl_vm *vm, const char *s, size_t n)
{
    char *p = vm_alloc_raw(vm, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void vm_steps(sl_vm *vm, uint64_t n)
{
    vm->steps += n;
    if (vm->steps > vm->lim.max_steps || vm->steps < n)
        sl_fail(vm, "the script ran more than %llu steps (CMP_STARLARK_MAX_STEPS)",
                (unsigned long long)vm->lim.max_steps);
}

void vm_check_len(sl_vm *vm, uint64_t n, const char *what)
{
    if (n > vm->lim.max_len)
        sl_fail(vm, "%s of %llu elements is over the size limit of %llu (CMP_STARLARK_MAX_LEN)", what,
                (unsigned long long)n, (unsigned long long)vm->lim.max_len);
}

void sl_free(sl_vm *vm)
{
    if (!vm)
        return;
    for (sl_chunk *c = vm->chunks, *next; c; c = next) {
        next = c->next;
        xfree(c);
    }
    xfree(vm->iters);
    xfree(vm->pre);
    xfree(vm->mods);
    xfree(vm);
}

uint64_t sl_steps_used(const sl_vm *vm)
{
    return vm->steps;
}

const char *sl_error(const sl_vm *vm)
{
    return vm->err;
}

const char *sl_error_message(const sl_vm *vm)
{
    return vm->msg;
}

/* ---- text buffers ---- */
void sb_init(sbuf *b, sl_vm *vm)
{
    b->vm = vm;
    b->s = NULL;
    b->len = b->cap = 0;
}

static void sb_grow(sbuf *b, size_t need)
{
    if (b->len + need + 1 <= b->cap)
        return;
    vm_check_len(b->vm, b->len + need, "a string");
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *s = vm_alloc_raw(b->vm, cap);
    if (b->len)
        memcpy(s, b->s, b->len);
    b->s = s;
    b->cap = cap;
}

void sb_add(sbuf *b, const char *s, size_t n)
{
    sb_grow(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void sb_addc(sbuf *b, char c)
{
    sb_add(b, &c, 1);
}

void sb_adds(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_add(b, tmp, (size_t)n);
        return;
    }
    sb_grow(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

sl_val sb_str(sbuf *b)
{
    return mk_str(b->vm, b->s ? b->s : "", b->len, false);
}
