/* Text formatting: floats as Go's strconv writes them (what go.starlark.net's str() and %g show: the shortest text
 * that reads back as the same float, exponent form below 1e-4 and from 1e+06), the `%` operator and str.format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "starlark/internal.h"

/* shortest decimal digits of d > 0 and the exponent of the first one */
static int shortest(double d, char *digits, int *exp10)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        if (strtod(buf, NULL) == d || p == 17)
            break;
    }
    int nd = 0;
    char *e = strchr(buf, 'e');
    for (char *q = buf; q < e; q++)
        if (*q >= '0' && *q <= '9')
            digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    *exp10 = atoi(e + 1);
    return nd;
}

void float_format(sbuf *b, double d, char conv, int prec)
{
    if (isnan(d)) {
        sb_adds(b, "nan");
        return;
    }
    if (isinf(d)) {
        sb_adds(b, d > 0 ? "+inf" : "-inf");
        return;
    }
    if (conv == 'e' || conv == 'E' || conv == 'f' || conv == 'F') {
        char fmt[8] = {'%', '.', '*', conv, 0};
        sb_printf(b, fmt, prec < 0 ? 6 : prec, d);
        return;
    }
    /* %g, shortest */
    size_t start = b->len;
    if (signbit(d))
        sb_addc(b, '-');
    double a = fabs(d);
    if (a == 0) {
        sb_adds(b, "0.0");
        return;
    }
    char digits[32];
    int ex;
    int nd = shortest(a, digits, &ex);
    if (ex < -4 || ex >= 6) {
        sb_addc(b, digits[0]);
        if (nd > 1) {
            sb_addc(b, '.');
            sb_add(b, digits + 1, (size_t)nd - 1);
        }
        sb_printf(b, "%c%c%02d", conv == 'G' ? 'E' : 'e', ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
        return;
    }
    int dp = ex + 1;
    if (dp > 0) {
        for (int i = 0; i < dp; i++)
            sb_addc(b, i < nd ? digits[i] : '0');
    } else
        sb_addc(b, '0');
    int frac = nd - dp;
    if (frac > 0) {
        sb_addc(b, '.');
        for (int i = 0; i < frac; i++) {
            int j = dp + i;
            sb_addc(b, j >= 0 && j < nd ? digits[j] : '0');
        }
    }
    if (!memchr(b->s + start, '.', b->len - start))
        sb_adds(b, ".0");
}

static void fmt_conv(sl_vm *vm, sbuf *b, char c, sl_val v)
{
    switch (c) {
    case 's': vm_str(vm, b, v); return;
    case 'r': vm_repr(vm, b, v); return;
    case 'd':
    case 'i':
    case 'o':
    case 'x':
    case 'X': {
        sl_val i = v;
        if (TYPE(v) == SL_FLOAT) {
            double d = AS(sl_float_o, v)->d;
            if (!isfinite(d))
                sl_fail(vm, "cannot convert float %s to integer", isnan(d) ? "NaN" : "infinity");
            i = int_from_double(vm, d);
        } else if (TYPE(v) == SL_BOOL) /* a bool is no int here (int.star) */
            sl_fail(vm, "%%%c format: cannot convert bool to int", c);
        else if (TYPE(v) != SL_INT)
            sl_fail(vm, "%%%c format requires integer: %s", c, sl_type_name(v));
        int_format(vm, b, i, c == 'o' ? 8 : (c == 'x' || c == 'X') ? 16 : 10, c == 'X');
        return;
    }
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': {
        if (TYPE(v) != SL_FLOAT && TYPE(v) != SL_INT)
            sl_fail(vm, "%%%c format requires float, not %s", c, sl_type_name(v));
        bool ovf = false;
        double d = TYPE(v) == SL_FLOAT ? AS(sl_float_o, v)->d : int_to_double(v, &ovf);
        if (ovf)
            sl_fail(vm, "int too large to convert to float");
        float_format(b, d, c, -1);
        return;
    }
    case 'c': {
        if (TYPE(v) == SL_STRING) {
            size_t n;
            const char *s = sl_str_data(v, &n);
            uint32_t cp;
            if (utf8_decode((const unsigned char *)s, n, &cp) != (int)n || !n)
                sl_fail(vm, "%%c format requires a single-character string");
            sb_add(b, s, n);
            return;
        }
        if (TYPE(v) != SL_INT)
            sl_fail(vm, "%%c format requires int or single-character string, not %s", sl_type_name(v));
        int64_t i;
        if (!sl_as_int64(v, &i) || i < 0 || i > 0x10ffff)
            sl_fail(vm, "%%c format requires a valid Unicode code point, got %s", sl_repr(vm, v));
        char u[4];
        sb_add(b, u, (size_t)utf8_encode((uint32_t)i, u));
        return;
    }
    default:
        sl_fail(vm, "unknown conversion %%%c", c);
    }
}

sl_val str_percent(sl_vm *vm, sl_val fmtv, sl_val args)
{
    size_t n;
    const char *f = sl_str_data(fmtv, &n);
    sl_val *argv;
    size_t argc, used = 0;
    if (TYPE(args) == SL_TUPLE) {
        argv = AS(sl_tuple_o, args)->v;
        argc = AS(sl_tuple_o, args)->len;
    } else {
        argv = &args;
        argc = 1;
    }
    sbuf b;
    sb_init(&b, vm);
    sb_add(&b, "", 0);
    vm_steps(vm, n / 16);
    for (size_t i = 0; i < n; i++) {
        if (f[i] != '%') {
            size_t j = i;
            while (j < n && f[j] != '%')
                j++;
            sb_add(&b, f + i, j - i);
            i = j - 1;
            continue;
        }
        i++;
        if (i >= n)
            sl_fail(vm, "incomplete format");
        if (f[i] == '%') {
            sb_addc(&b, '%');
            continue;
        }
        sl_val v;
        if (f[i] == '(') {
            size_t j = i + 1;
            while (j < n && f[j] != ')')
                j++;
            if (j >= n)
                sl_fail(vm, "incomplete format key");
            sl_val key = mk_str(vm, f + i + 1, j - i - 1, false);
            if (TYPE(args) != SL_DICT)
                sl_fail(vm, "format requires a mapping");
            sl_entry *e = dict_find(vm, args, key);
            if (!e)
                sl_fail(vm, "key not found: %s", sl_repr(vm, key));
            v = e->v;
            i = j + 1;
            if (i >= n)
                sl_fail(vm, "incomplete format");
        } else {
            if (used >= argc)
                sl_fail(vm, "not enough arguments for format string");
            v = argv[used++];
        }
        fmt_conv(vm, &b, f[i], v);
        vm_steps(vm, 1);
    }
    if (used < argc && TYPE(args) == SL_TUPLE)
        sl_fail(vm, "too many arguments for format string");
    if (used < argc && TYPE(args) != SL_DICT)
        sl_fail(vm, "too many arguments for format string");
    return sb_str(&b);
}

/* a field name that is a positional index: decimal digits only ("{0,1}" is a keyword, go.starlark.net) */
static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return n > 0;
}

sl_val str_format(sl_vm *vm, sl_val fmtv, int nargs, sl_val *args, int nkw, sl_val *kw)
{
    size_t n;
    const char *f = sl_str_data(fmtv, &n);
    sbuf b;
    sb_init(&b, vm);
    sb_add(&b, "", 0);
    int auto_idx = 0;
    int mode = 0; /* 1 automatic, 2 manual */
    vm_steps(vm, n / 16);
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        if (c == '}') {
            if (i + 1 < n && f[i + 1] == '}') {
                sb_addc(&b, '}');
                i++;
                continue;
            }
            sl_fail(vm, "format: single '}' in format");
        }
        if (c != '{') {
            sb_addc(&b, c);
            continue;
        }
        if (i + 1 < n && f[i + 1] == '{') {
            sb_addc(&b, '{');
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && f[j] != '}') {
            if (f[j] == '{')
                sl_fail(vm, "format: nested replacement fields not supported");
            j++;
        }
        if (j >= n)
            sl_fail(vm, "format: unmatched '{' in format");
        const char *field = f + i + 1;
        size_t flen = j - i - 1;
        char conv = 's';
        const char *bang = memchr(field, '!', flen);
        const char *colon = memchr(field, ':', flen);
        size_t namelen = flen;
        if (bang && (!colon || bang < colon)) {
            namelen = (size_t)(bang - field);
            size_t rest = flen - namelen - 1;
            if (rest < 1 || (bang[1] != 's' && bang[1] != 'r'))
                sl_fail(vm, "format: unknown conversion %.*s", (int)(rest + 1), bang);
            conv = bang[1];
            if (rest > 1) {
                if (bang[2] == ':')
                    sl_fail(vm, "format spec features not supported in replacement fields: %.*s", (int)(rest - 2), bang + 3);
                sl_fail(vm, "format: unknown conversion %.*s", (int)rest, bang + 1);
            }
        } else if (colon) {
            namelen = (size_t)(colon - field);
            if (flen - namelen - 1 > 0)
                sl_fail(vm, "format spec features not supported in replacement fields: %.*s", (int)(flen - namelen - 1), colon + 1);
        }
        sl_val v;
        if (namelen == 0) {
            if (mode == 2)
                sl_fail(vm, "format: cannot switch from manual field specification to automatic field numbering");
            mode = 1;
            if (auto_idx >= nargs)
                sl_fail(vm, "format: tuple index out of range");
            v = args[auto_idx++];
        } else if (all_digits(field, namelen)) {
            if (mode == 1)
                sl_fail(vm, "format: cannot switch from automatic field numbering to manual field specification");
            mode = 2;
            long idx = 0;
            for (size_t k = 0; k < namelen; k++) {
                idx = idx * 10 + (field[k] - '0');
                if (idx > 1000000)
                    break;
            }
            if (idx >= nargs)
                sl_fail(vm, "format: tuple index out of range");
            v = args[idx];
        } else {
            /* a keyword; what is not one is named as go.starlark.net names it: x.y first, then a[i] */
            v = NULL;
            for (int k = 0; k < nkw; k++) {
                size_t kl;
                const char *kn = sl_str_data(kw[2 * k], &kl);
                if (kl == namelen && !memcmp(kn, field, namelen))
                    v = kw[2 * k + 1];
            }
            if (!v && memchr(field, '.', namelen))
                sl_fail(vm, "format: attribute syntax x.y is not supported in replacement fields: %.*s", (int)namelen,
                        field);
            if (!v && memchr(field, '[', namelen))
                sl_fail(vm, "format: element syntax a[i] is not supported in replacement fields: %.*s", (int)namelen,
                        field);
            if (!v)
                sl_fail(vm, "format: keyword %.*s not found", (int)namelen, field);
        }
        if (conv == 'r')
            vm_repr(vm, &b, v);
        else
            vm_str(vm, &b, v);
        i = j;
    }
    return sb_str(&b);
}
