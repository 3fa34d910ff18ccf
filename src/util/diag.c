#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char message[2048];
static bool failed;
static const char *step;

void diag_set_step(const char *s)
{
    step = s;
}

const char *diag_step(void)
{
    return step;
}

int fail(const char *file, int line, const char *fmt, ...)
{
    if (failed)
        return -1;
    failed = true;
    size_t n = 0;
    if (file && *file) {
        if (line > 0)
            n += (size_t)snprintf(message + n, sizeof message - n, "%s:%d: ", file, line);
        else
            n += (size_t)snprintf(message + n, sizeof message - n, "%s: ", file);
    }
    if (n < sizeof message && step && *step)
        n += (size_t)snprintf(message + n, sizeof message - n, "%s: ", step);
    if (n < sizeof message) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message + n, sizeof message - n, fmt, ap);
        va_end(ap);
    }
    /* One line: Argo CD shows stderr in the UI and logs it as a field. */
    for (char *p = message; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return -1;
}

bool diag_failed(void)
{
    return failed;
}

const char *diag_message(void)
{
    return message;
}

void diag_reset(void)
{
    failed = false;
    message[0] = 0;
    step = NULL;
}

void diag_clear(void)
{
    failed = false;
    message[0] = 0;
}
