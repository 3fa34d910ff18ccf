#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

static diag_detail the_error; /* the render's: what main prints */
static diag_detail *current = &the_error;
static const char *step;
static char **warnings;
static size_t nwarnings;

void diag_set_step(const char *s)
{
    step = s;
}

const char *diag_step(void)
{
    return step;
}

/* One line: Argo CD shows stderr in the UI and logs it as a field. */
static void one_line(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

int fail(const char *file, int line, const char *fmt, ...)
{
    diag_detail *d = current;
    if (d->failed)
        return -1;
    d->failed = true;
    d->line = file && *file && line > 0 ? line : 0;
    d->step = step;
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    one_line(d->message);
    size_t n = 0;
    char *t = d->text;
    if (file && *file) {
        if (line > 0)
            n += (size_t)snprintf(t + n, sizeof d->text - n, "%s:%d: ", file, line);
        else
            n += (size_t)snprintf(t + n, sizeof d->text - n, "%s: ", file);
    }
    if (n < sizeof d->text && step && *step)
        n += (size_t)snprintf(t + n, sizeof d->text - n, "%s: ", step);
    if (n < sizeof d->text)
        snprintf(t + n, sizeof d->text - n, "%s", d->message);
    else
        t[sizeof d->text - 1] = 0;
    one_line(t);
    return -1;
}

bool diag_failed(void)
{
    return current->failed;
}

const char *diag_message(void)
{
    return current->failed ? current->text : "";
}

void diag_reset(void)
{
    the_error.failed = false;
    the_error.text[0] = 0;
    current = &the_error;
    step = NULL;
    for (size_t i = 0; i < nwarnings; i++)
        xfree(warnings[i]);
    xfree(warnings);
    warnings = NULL;
    nwarnings = 0;
}

diag_detail *diag_capture(diag_detail *into)
{
    diag_detail *outer = current;
    into->failed = false;
    into->line = 0;
    into->step = NULL;
    into->file[0] = into->message[0] = into->text[0] = 0;
    current = into;
    return outer;
}

void diag_restore(diag_detail *outer)
{
    current = outer ? outer : &the_error;
}

int diag_raise(const diag_detail *d)
{
    if (d->failed && !current->failed && d != current)
        *current = *d;
    return -1;
}

void diag_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *w = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(w, (size_t)n + 1, fmt, ap);
    va_end(ap);
    one_line(w);
    warnings = xrealloc(warnings, (nwarnings + 1) * sizeof *warnings);
    warnings[nwarnings++] = w;
}

const char *diag_warning(size_t i)
{
    return i < nwarnings ? warnings[i] : NULL;
}

const char *shown(struct arena *a, const char *s)
{
    size_t n = strlen(s), keep = n > 80 ? 80 : n;
    char *out = arena_alloc(a, keep + 4);
    for (size_t i = 0; i < keep; i++)
        out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    memcpy(out + keep, n > keep ? "..." : "", n > keep ? 4 : 1);
    return out;
}
