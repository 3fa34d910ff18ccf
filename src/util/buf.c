#include "util/buf.h"
#include "util/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_reserve(buf *b, size_t extra)
{
    if (b->cap - b->len > extra)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len <= extra)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void buf_put(buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

void buf_puts(buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

void buf_putc(buf *b, char c)
{
    buf_reserve(b, 1);
    b->data[b->len++] = c;
}

void buf_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_indent(buf *b, int n)
{
    buf_reserve(b, (size_t)n);
    memset(b->data + b->len, ' ', (size_t)n);
    b->len += (size_t)n;
}

void buf_free(buf *b)
{
    xfree(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *buf_cstr(buf *b)
{
    buf_reserve(b, 1);
    b->data[b->len] = 0;
    return b->data;
}
