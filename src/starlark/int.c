/* Starlark's ints are arbitrary-precision: small ones are tagged pointers (62 bits, no allocation), bigger ones a
 * sign and 32-bit limbs. Every operation whose result may grow (multiplication, shifts, parsing) checks the result's
 * size against the VM's size limit before it computes anything, so `10**10**10` or `1 << (1 << 40)` is a clean
 * error, not a long computation or an allocation of gigabytes. Division and modulo round towards minus infinity and
 * bitwise operations behave as two's complement, as the spec says. */
#include <math.h>
#include <stdlib.h>

#include "starlark/internal.h"

typedef struct { int sign; uint32_t n; uint32_t *d; uint32_t buf[3]; } mag; /* a view of any int */

static void view(sl_val v, mag *m)
{
    if (IS_SMALL(v)) {
        int64_t i = SMALL_VAL(v);
        uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
        m->sign = i < 0 ? -1 : 1;
        m->d = m->buf;
        m->buf[0] = (uint32_t)u;
        m->buf[1] = (uint32_t)(u >> 32);
        m->n = u == 0 ? 0 : m->buf[1] ? 2 : 1;
    } else {
        sl_big_o *b = AS(sl_big_o, v);
        m->sign = b->sign;
        m->n = b->n;
        m->d = b->d;
    }
}

static uint32_t trimmed(const uint32_t *d, uint32_t n)
{
    while (n && !d[n - 1])
        n--;
    return n;
}

/* takes d (VM memory) as the result's magnitude */
sl_val int_from_big(sl_vm *vm, int sign, uint32_t *d, uint32_t n)
{
    n = trimmed(d, n);
    if (n <= 2) {
        uint64_t u = n == 0 ? 0 : n == 1 ? d[0] : ((uint64_t)d[1] << 32 | d[0]);
        if (sign > 0 && u <= (uint64_t)SMALL_MAX)
            return MK_SMALL((int64_t)u);
        if (sign < 0 && u <= (uint64_t)SMALL_MAX + 1)
            return MK_SMALL(-(int64_t)u);
    }
    vm_check_len(vm, (uint64_t)n * 32, "an int of bits");
    sl_big_o *b = vm_alloc(vm, sizeof *b);
    b->h.type = SL_INT;
    b->h.frozen = 1;
    b->sign = sign;
    b->n = n;
    b->d = d;
    return (sl_val)b;
}

static uint32_t *limbs(sl_vm *vm, uint32_t n)
{
    return vm_alloc(vm, (size_t)(n ? n : 1) * 4);
}

static int mag_cmp(const uint32_t *a, uint32_t an, const uint32_t *b, uint32_t bn)
{
    if (an != bn)
        return an < bn ? -1 : 1;
    for (uint32_t i = an; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static uint32_t *mag_add(sl_vm *vm, const uint32_t *a, uint32_t an, const uint32_t *b, uint32_t bn, uint32_t *rn)
{
    if (an < bn) {
        const uint32_t *t = a; a = b; b = t;
        uint32_t tn = an; an = bn; bn = tn;
    }
    uint32_t *r = limbs(vm, an + 1);
    uint64_t carry = 0;
    for (uint32_t i = 0; i < an; i++) {
        carry += (uint64_t)a[i] + (i < bn ? b[i] : 0);
        r[i] = (uint32_t)carry;
        carry >>= 32;
    }
    r[an] = (uint32_t)carry;
    *rn = an + 1;
    return r;
}

/* a >= b */
static uint32_t *mag_sub(sl_vm *vm, const uint32_t *a, uint32_t an, const uint32_t *b, uint32_t bn, uint32_t *rn)
{
    uint32_t *r = limbs(vm, an);
    int64_t borrow = 0;
    for (uint32_t i = 0; i < an; i++) {
        int64_t x = (int64_t)a[i] - (i < bn ? b[i] : 0) - borrow;
        borrow = x < 0;
        r[i] = (uint32_t)(x + (borrow ? ((int64_t)1 << 32) : 0));
    }
    *rn = an;
    return r;
}

static sl_val addsub(sl_vm *vm, sl_val x, sl_val y, bool sub)
{
    mag a, b;
    view(x, &a);
    view(y, &b);
    if (sub)
        b.sign = -b.sign;
    uint32_t rn;
    uint32_t *r;
    int sign;
    if (a.sign == b.sign || a.n == 0 || b.n == 0) {
        sign = a.n ? a.sign : b.sign;
        r = mag_add(vm, a.d, a.n, b.d, b.n, &rn);
    } else if (mag_cmp(a.d, a.n, b.d, b.n) >= 0) {
        sign = a.sign;
        r = mag_sub(vm, a.d, a.n, b.d, b.n, &rn);
    } else {
        sign = b.sign;
        r = mag_sub(vm, b.d, b.n, a.d, a.n, &rn);
    }
    return int_from_big(vm, sign, r, rn);
}

sl_val int_add(sl_vm *vm, sl_val a, sl_val b)
{
    if (IS_SMALL(a) && IS_SMALL(b)) {
        int64_t r = SMALL_VAL(a) + SMALL_VAL(b);
        if (r >= SMALL_MIN && r <= SMALL_MAX)
            return MK_SMALL(r);
    }
    return addsub(vm, a, b, false);
}

sl_val int_sub(sl_vm *vm, sl_val a, sl_val b)
{
    if (IS_SMALL(a) && IS_SMALL(b)) {
        int64_t r = SMALL_VAL(a) - SMALL_VAL(b);
        if (r >= SMALL_MIN && r <= SMALL_MAX)
            return MK_SMALL(r);
    }
    return addsub(vm, a, b, true);
}

sl_val int_neg(sl_vm *vm, sl_val a)
{
    return int_sub(vm, MK_SMALL(0), a);
}

uint64_t int_bitlen(sl_val v)
{
    mag a;
    view(v, &a);
    if (!a.n)
        return 0;
    uint32_t top = a.d[a.n - 1];
    int bits = 32 - __builtin_clz(top);
    return (uint64_t)(a.n - 1) * 32 + (uint64_t)bits;
}

sl_val int_mul(sl_vm *vm, sl_val x, sl_val y)
{
    if (IS_SMALL(x) && IS_SMALL(y)) {
        __int128 r = (__int128)SMALL_VAL(x) * SMALL_VAL(y);
        if (r >= SMALL_MIN && r <= SMALL_MAX)
            return MK_SMALL((int64_t)r);
    }
    mag a, b;
    view(x, &a);
    view(y, &b);
    if (!a.n || !b.n)
        return MK_SMALL(0);
    vm_check_len(vm, int_bitlen(x) + int_bitlen(y), "an int of bits");
    /* steps are charged by time: a step of the interpreter's loop costs about 25 ns, a limb product about 1.2 ns.
     * At a 64th, 2.5-million-bit operands ran 7.5 s for 95M steps, under the 100M budget (an attacker's review). */
    vm_steps(vm, ((uint64_t)a.n * b.n) / 16);
    uint32_t rn = a.n + b.n;
    uint32_t *r = limbs(vm, rn);
    for (uint32_t i = 0; i < a.n; i++) {
        uint64_t carry = 0;
        for (uint32_t j = 0; j < b.n; j++) {
            carry += (uint64_t)a.d[i] * b.d[j] + r[i + j];
            r[i + j] = (uint32_t)carry;
            carry >>= 32;
        }
        r[i + b.n] = (uint32_t)carry;
    }
    return int_from_big(vm, a.sign * b.sign, r, rn);
}

/* q = a / b, r = a % b on magnitudes (Knuth's algorithm D); b nonzero */
static void mag_divmod(sl_vm *vm, const uint32_t *a, uint32_t an, const uint32_t *b, uint32_t bn, uint32_t **q,
                       uint32_t *qn, uint32_t **r, uint32_t *rn)
{
    if (mag_cmp(a, an, b, bn) < 0) {
        *q = limbs(vm, 1);
        *qn = 0;
        *r = limbs(vm, an);
        memcpy(*r, a, (size_t)an * 4);
        *rn = an;
        return;
    }
    vm_steps(vm, ((uint64_t)an * bn) / 16); /* as int_mul */
    if (bn == 1) {
        uint32_t *qq = limbs(vm, an);
        uint64_t rem = 0;
        for (uint32_t i = an; i-- > 0;) {
            uint64_t cur = rem << 32 | a[i];
            qq[i] = (uint32_t)(cur / b[0]);
            rem = cur % b[0];
        }
        *q = qq;
        *qn = an;
        *r = limbs(vm, 1);
        (*r)[0] = (uint32_t)rem;
        *rn = 1;
        return;
    }
    int s = __builtin_clz(b[bn - 1]);
    uint32_t *vn = limbs(vm, bn), *un = limbs(vm, an + 1);
    for (uint32_t i = bn - 1; i > 0; i--)
        vn[i] = (b[i] << s) | (s ? (uint32_t)((uint64_t)b[i - 1] >> (32 - s)) : 0);
    vn[0] = b[0] << s;
    un[an] = s ? (uint32_t)((uint64_t)a[an - 1] >> (32 - s)) : 0;
    for (uint32_t i = an - 1; i > 0; i--)
        un[i] = (a[i] << s) | (s ? (uint32_t)((uint64_t)a[i - 1] >> (32 - s)) : 0);
    un[0] = a[0] << s;
    uint32_t m = an - bn;
    uint32_t *qq = limbs(vm, m + 1);
    const uint64_t B = (uint64_t)1 << 32;
    for (int64_t j = m; j >= 0; j--) {
        uint64_t num = ((uint64_t)un[j + bn] << 32) | un[j + bn - 1];
        uint64_t qhat = num / vn[bn - 1], rhat = num % vn[bn - 1];
        while (qhat >= B || qhat * vn[bn - 2] > ((rhat << 32) | un[j + bn - 2])) {
            qhat--;
            rhat += vn[bn - 1];
            if (rhat >= B)
                break;
        }
        int64_t borrow = 0;
        uint64_t carry = 0;
        for (uint32_t i = 0; i < bn; i++) {
            uint64_t p = qhat * vn[i] + carry;
            carry = p >> 32;
            int64_t t = (int64_t)un[i + j] - borrow - (int64_t)(p & 0xffffffffu);
            un[i + j] = (uint32_t)t;
            borrow = t < 0 ? 1 : 0;
        }
        int64_t t = (int64_t)un[j + bn] - borrow - (int64_t)carry;
        un[j + bn] = (uint32_t)t;
        if (t < 0) {
            qhat--;
            uint64_t c = 0;
            for (uint32_t i = 0; i < bn; i++) {
                c += (uint64_t)un[i + j] + vn[i];
                un[i + j] = (uint32_t)c;
                c >>= 32;
            }
            un[j + bn] += (uint32_t)c;
        }
        qq[j] = (uint32_t)qhat;
    }
    uint32_t *rr = limbs(vm, bn);
    for (uint32_t i = 0; i < bn; i++)
        rr[i] = (un[i] >> s) | (s ? (uint32_t)((uint64_t)un[i + 1] << (32 - s)) : 0);
    *q = qq;
    *qn = m + 1;
    *r = rr;
    *rn = bn;
}

static void divmod(sl_vm *vm, sl_val x, sl_val y, sl_val *qo, sl_val *ro)
{
    if (int_sign(y) == 0)
        sl_fail(vm, "%s by zero", qo ? "integer division" : "integer modulo");
    if (IS_SMALL(x) && IS_SMALL(y)) {
        int64_t a = SMALL_VAL(x), b = SMALL_VAL(y);
        int64_t q = a / b, r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) {
            q--;
            r += b;
        }
        if (qo) /* only SMALL_MIN / -1 leaves the small range */
            *qo = q <= SMALL_MAX ? MK_SMALL(q) : int_add(vm, MK_SMALL(SMALL_MAX), MK_SMALL(q - SMALL_MAX));
        if (ro)
            *ro = MK_SMALL(r);
        return;
    }
    mag a, b;
    view(x, &a);
    view(y, &b);
    uint32_t *q, *r, qn, rn;
    mag_divmod(vm, a.d, a.n, b.d, b.n, &q, &qn, &r, &rn);
    rn = trimmed(r, rn);
    if (a.sign == b.sign || a.n == 0) {
        if (qo)
            *qo = int_from_big(vm, 1, q, qn);
        if (ro)
            *ro = int_from_big(vm, a.sign, r, rn);
        return;
    }
    if (rn == 0) {
        if (qo)
            *qo = int_from_big(vm, -1, q, qn);
        if (ro)
            *ro = MK_SMALL(0);
        return;
    }
    if (qo) {
        uint32_t one = 1, n2;
        uint32_t *q2 = mag_add(vm, q, trimmed(q, qn), &one, 1, &n2);
        *qo = int_from_big(vm, -1, q2, n2);
    }
    if (ro) {
        uint32_t n2;
        uint32_t *r2 = mag_sub(vm, b.d, b.n, r, rn, &n2);
        *ro = int_from_big(vm, b.sign, r2, n2);
    }
}

sl_val int_floordiv(sl_vm *vm, sl_val a, sl_val b)
{
    sl_val q;
    divmod(vm, a, b, &q, NULL);
    return q;
}

sl_val int_mod(sl_vm *vm, sl_val a, sl_val b)
{
    sl_val r;
    divmod(vm, a, b, NULL, &r);
    return r;
}

int int_sign(sl_val v)
{
    if (IS_SMALL(v))
        return SMALL_VAL(v) < 0 ? -1 : SMALL_VAL(v) > 0;
    return AS(sl_big_o, v)->sign;
}

int int_cmp(sl_val x, sl_val y)
{
    if (IS_SMALL(x) && IS_SMALL(y))
        return SMALL_VAL(x) < SMALL_VAL(y) ? -1 : SMALL_VAL(x) > SMALL_VAL(y);
    mag a, b;
    view(x, &a);
    view(y, &b);
    int sa = a.n ? a.sign : 0, sb = b.n ? b.sign : 0;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return sa * mag_cmp(a.d, a.n, b.d, b.n);
}

/* two's complement of v in n limbs */
static void twos(sl_val v, uint32_t *out, uint32_t n)
{
    mag a;
    view(v, &a);
    for (uint32_t i = 0; i < n; i++)
        out[i] = i < a.n ? a.d[i] : 0;
    if (a.sign < 0 && a.n) {
        uint64_t carry = 1;
        for (uint32_t i = 0; i < n; i++) {
            carry += (uint32_t)~out[i];
            out[i] = (uint32_t)carry;
            carry >>= 32;
        }
    }
}

static sl_val from_twos(sl_vm *vm, uint32_t *d, uint32_t n)
{
    if (n && (d[n - 1] >> 31)) {
        uint64_t carry = 1;
        for (uint32_t i = 0; i < n; i++) {
            carry += (uint32_t)~d[i];
            d[i] = (uint32_t)carry;
            carry >>= 32;
        }
        return int_from_big(vm, -1, d, n);
    }
    return int_from_big(vm, 1, d, n);
}

sl_val int_bitop(sl_vm *vm, int op, sl_val x, sl_val y)
{
    if (IS_SMALL(x) && IS_SMALL(y)) {
        int64_t a = SMALL_VAL(x), b = SMALL_VAL(y);
        return MK_SMALL(op == T_AMP ? (a & b) : op == T_PIPE ? (a | b) : (a ^ b));
    }
    mag a, b;
    view(x, &a);
    view(y, &b);
    uint32_t n = (a.n > b.n ? a.n : b.n) + 1;
    uint32_t *p = limbs(vm, n), *q = limbs(vm, n);
    twos(x, p, n);
    twos(y, q, n);
    for (uint32_t i = 0; i < n; i++)
        p[i] = op == T_AMP ? (p[i] & q[i]) : op == T_PIPE ? (p[i] | q[i]) : (p[i] ^ q[i]);
    return from_twos(vm, p, n);
}

sl_val int_invert(sl_vm *vm, sl_val a)
{
    return int_sub(vm, int_neg(vm, a), MK_SMALL(1));
}

sl_val int_shift(sl_vm *vm, bool left, sl_val x, sl_val y)
{
    if (int_sign(y) < 0)
        sl_fail(vm, "negative shift count: %s", sl_repr(vm, y));
    int64_t k;
    /* go.starlark.net refuses a count of 512 or more, either way and whatever x is (int.star) */
    if (!sl_as_int64(y, &k) || k >= 512)
        sl_fail(vm, "shift count too large: %s", sl_repr(vm, y));
    if (int_sign(x) == 0)
        return x;
    if (left) {
        vm_check_len(vm, int_bitlen(x) + (uint64_t)k, "an int of bits");
        if (IS_SMALL(x) && k < 62) {
            __int128 r = (__int128)SMALL_VAL(x) * ((__int128)1 << k);
            if (r >= SMALL_MIN && r <= SMALL_MAX)
                return MK_SMALL((int64_t)r);
        }
        mag a;
        view(x, &a);
        uint32_t w = (uint32_t)(k / 32), s = (uint32_t)(k % 32);
        uint32_t n = a.n + w + 1;
        uint32_t *r = limbs(vm, n);
        for (uint32_t i = 0; i < a.n; i++) {
            uint64_t v = (uint64_t)a.d[i] << s;
            r[i + w] |= (uint32_t)v;
            r[i + w + 1] |= (uint32_t)(v >> 32);
        }
        return int_from_big(vm, a.sign, r, n);
    }
    if (IS_SMALL(x))
        return MK_SMALL(k >= 63 ? (SMALL_VAL(x) < 0 ? -1 : 0) : SMALL_VAL(x) >> k);
    /* floor semantics: for negative x, ~((~x) >> k) */
    bool neg = int_sign(x) < 0;
    sl_val v = neg ? int_invert(vm, x) : x;
    mag a;
    view(v, &a);
    uint32_t w = (uint32_t)(k / 32), s = (uint32_t)(k % 32);
    if (w >= a.n)
        return MK_SMALL(neg ? -1 : 0);
    uint32_t n = a.n - w;
    uint32_t *r = limbs(vm, n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t lo = a.d[i + w], hi = i + w + 1 < a.n ? a.d[i + w + 1] : 0;
        r[i] = (uint32_t)((lo | hi << 32) >> s);
    }
    sl_val res = int_from_big(vm, 1, r, n);
    return neg ? int_invert(vm, res) : res;
}

void int_format(sl_vm *vm, sbuf *b, sl_val v, int base, bool upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    if (IS_SMALL(v)) {
        int64_t i = SMALL_VAL(v);
        uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
        char tmp[80];
        int p = sizeof tmp;
        do {
            tmp[--p] = digits[u % (uint64_t)base];
            u /= (uint64_t)base;
        } while (u);
        if (i < 0)
            tmp[--p] = '-';
        sb_add(b, tmp + p, sizeof tmp - (size_t)p);
        return;
    }
    mag a;
    view(v, &a);
    uint32_t n = a.n;
    uint32_t *d = limbs(vm, n);
    memcpy(d, a.d, (size_t)n * 4);
    /* chunks of digits: base^k fits 32 bits */
    uint32_t chunk = 1;
    int k = 0;
    while ((uint64_t)chunk * (uint64_t)base <= 0xffffffffu) {
        chunk *= (uint32_t)base;
        k++;
    }
    size_t cap = (size_t)n * 33 + 2, p = cap;
    char *tmp = vm_alloc_raw(vm, cap);
    /* about n passes of n 64-bit divisions, some 10 ns each: half a step per division pair. At a 64th,
     * str(1 << 2500000) was charged 95M steps and ran into the render's 45 s deadline (an attacker's review). */
    vm_steps(vm, ((uint64_t)n * n) / 2);
    while (n) {
        uint64_t rem = 0;
        for (uint32_t i = n; i-- > 0;) {
            uint64_t cur = rem << 32 | d[i];
            d[i] = (uint32_t)(cur / chunk);
            rem = cur % chunk;
        }
        n = trimmed(d, n);
        for (int j = 0; j < k && (n || rem); j++) {
            tmp[--p] = digits[rem % (uint32_t)base];
            rem /= (uint32_t)base;
        }
    }
    if (a.sign < 0)
        tmp[--p] = '-';
    sb_add(b, tmp + p, cap - p);
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* digits only (no sign, prefix or underscores): the caller has taken them off */
sl_val int_parse(sl_vm *vm, const char *s, size_t n, int base, bool *ok)
{
    *ok = false;
    if (!n)
        return NULL;
    int bits = 1;
    while ((1 << bits) < base)
        bits++;
    vm_check_len(vm, (uint64_t)n * (uint64_t)bits, "an int of bits");
    uint32_t cap = (uint32_t)((uint64_t)n * (uint64_t)bits / 32 + 2);
    /* charged before the work, by what it costs: each digit past the first 17 multiplies every limb so far, about
     * n * n * bits / 64 limb products for n digits. Charged after it, at n * n / 4096, int("7" * 1000000) ran until
     * the render's deadline whatever CMP_STARLARK_MAX_STEPS said (an attacker's review). */
    if (n > 17)
        vm_steps(vm, (uint64_t)n * n * (uint64_t)bits / 1024);
    uint32_t *d = limbs(vm, cap), len = 0;
    uint64_t small = 0;
    bool is_small = true;
    for (size_t i = 0; i < n; i++) {
        int dv = digit_value(s[i]);
        if (dv >= base)
            return NULL;
        if (is_small && small <= ((uint64_t)1 << 56)) {
            small = small * (uint64_t)base + (uint64_t)dv;
            continue;
        }
        if (is_small) {
            is_small = false;
            d[0] = (uint32_t)small;
            d[1] = (uint32_t)(small >> 32);
            len = 2;
        }
        uint64_t carry = (uint64_t)dv;
        for (uint32_t j = 0; j < len; j++) {
            carry += (uint64_t)d[j] * (uint64_t)base;
            d[j] = (uint32_t)carry;
            carry >>= 32;
        }
        if (carry)
            d[len++] = (uint32_t)carry;
    }
    *ok = true;
    if (is_small) {
        d[0] = (uint32_t)small;
        d[1] = (uint32_t)(small >> 32);
        len = 2;
    }
    return int_from_big(vm, 1, d, len);
}

double int_to_double(sl_val v, bool *overflow)
{
    *overflow = false;
    if (IS_SMALL(v))
        return (double)SMALL_VAL(v);
    mag a;
    view(v, &a);
    uint64_t bl = int_bitlen(v);
    if (bl > 1024) {
        *overflow = true;
        return 0;
    }
    /* the top 64 bits, with a sticky bit for anything below: rounds as the exact value would */
    uint64_t top = 0;
    int64_t shift = (int64_t)bl - 64;
    for (int64_t bit = (int64_t)bl - 1; bit >= 0 && bit >= shift; bit--) {
        uint32_t limb = a.d[bit / 32];
        top = top << 1 | ((limb >> (bit % 32)) & 1);
    }
    bool sticky = false;
    for (int64_t bit = shift - 1; bit >= 0 && !sticky; bit--)
        if ((a.d[bit / 32] >> (bit % 32)) & 1)
            sticky = true;
    if (sticky)
        top |= 1;
    double d = ldexp((double)top, (int)(shift > 0 ? shift : 0));
    if (isinf(d)) {
        *overflow = true;
        return 0;
    }
    return a.sign < 0 ? -d : d;
}

sl_val int_from_double(sl_vm *vm, double d)
{
    d = trunc(d);
    if (d >= -2305843009213693952.0 && d < 2305843009213693952.0)
        return MK_SMALL((int64_t)d);
    int e;
    double m = frexp(fabs(d), &e); /* d = m * 2^e, m in [0.5, 1) */
    uint64_t mant = (uint64_t)ldexp(m, 53);
    uint32_t d2[2] = {(uint32_t)mant, (uint32_t)(mant >> 32)};
    uint32_t *p = limbs(vm, 2);
    memcpy(p, d2, sizeof d2);
    sl_val base = int_from_big(vm, d < 0 ? -1 : 1, p, 2);
    return int_shift(vm, true, base, MK_SMALL(e - 53));
}

int int_cmp_float(sl_val a, double f)
{
    if (isinf(f))
        return f > 0 ? -1 : 1;
    bool ovf;
    double ad = int_to_double(a, &ovf);
    if (ovf)
        return int_sign(a);
    if (ad < f)
        return -1;
    if (ad > f)
        return 1;
    /* equal as doubles: exact when the int fits 53 bits or the double's rounding made them meet */
    if (int_bitlen(a) <= 53)
        return 0;
    /* compare a with the exact integer value of f (which is integral, being that large) */
    mag m;
    view(a, &m);
    int e;
    double fm = frexp(fabs(f), &e);
    uint64_t mant = (uint64_t)ldexp(fm, 53);
    int64_t sh = e - 53;
    /* f = mant << sh with sh >= 0 here; compare bit by bit from the top */
    uint64_t bl = int_bitlen(a);
    for (int64_t bit = (int64_t)bl - 1; bit >= 0; bit--) {
        int ab = (m.d[bit / 32] >> (bit % 32)) & 1;
        int64_t fbit = bit - sh;
        int fb = fbit >= 0 && fbit < 64 ? (int)((mant >> fbit) & 1) : 0;
        if (ab != fb)
            return (ab > fb ? 1 : -1) * m.sign;
    }
    return 0;
}

uint32_t int_hash(sl_vm *vm, sl_val v)
{
    if (IS_SMALL(v)) {
        int64_t i = SMALL_VAL(v);
        return (uint32_t)hash_bytes_seeded(vm->seed, &i, sizeof i);
    }
    mag a;
    view(v, &a);
    uint64_t h = hash_bytes_seeded(vm->seed, a.d, (size_t)a.n * 4);
    return (uint32_t)(h ^ (uint64_t)(a.sign < 0));
}

bool sl_as_int64(sl_val v, int64_t *out)
{
    if (TYPE(v) != SL_INT)
        return false;
    if (IS_SMALL(v)) {
        *out = SMALL_VAL(v);
        return true;
    }
    mag a;
    view(v, &a);
    if (a.n > 2)
        return false;
    uint64_t u = (uint64_t)a.d[1] << 32 | a.d[0];
    if (a.sign > 0 && u <= (uint64_t)INT64_MAX) {
        *out = (int64_t)u;
        return true;
    }
    if (a.sign < 0 && u <= (uint64_t)INT64_MAX + 1) {
        *out = (int64_t)(0 - u);
        return true;
    }
    return false;
}
