/* Growable byte buffer: the whole output is built here and written only when the render succeeded. */
#ifndef CMP_UTIL_BUF_H
#define CMP_UTIL_BUF_H
#include <stddef.h>

typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

void buf_reserve(buf *b, size_t extra);
void buf_put(buf *b, const char *s, size_t n);
void buf_puts(buf *b, const char *s);
void buf_putc(buf *b, char c);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_indent(buf *b, int n);
void buf_free(buf *b);
/* NUL-terminates without counting the NUL in len. */
const char *buf_cstr(buf *b);
#endif
