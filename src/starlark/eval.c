/* The evaluator: walks the resolved tree. Errors jump (longjmp) to the innermost catch point, which undoes what
 * the unwound code left (iterations in progress, call depth), so a builtin never has to check. Every statement,
 * loop iteration and call costs a step; calls are bounded by the depth limit, and the tree's height is bounded by
 * the parser, so the C stack stays small whatever the script does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "starlark/internal.h"
#include "util/arena.h"

int module_global(sl_vm *vm, sl_module *m, const char *name, bool add);

enum { NORMAL, BREAK, CONTINUE, RETURN };
enum { STACK_BUDGET = 4 << 20 };

sl_vm *sl_new(const sl_limits *lim, uint64_t seed)
{
    sl_vm *vm = xmalloc(sizeof *vm);
    memset(vm, 0, sizeof *vm);
    vm->lim = *lim;
    vm->seed = seed;
    universe_init();
    return vm;
}

void sl_predeclare(sl_vm *vm, const char *name, sl_val v)
{
    if (vm->npre == vm->precap) {
        vm->precap = vm->precap ? vm->precap * 2 : 8;
        vm->pre = xrealloc(vm->pre, (size_t)vm->precap * sizeof *vm->pre);
    }
    vm->pre[vm->npre++] = (sl_named){name, v};
}

void sl_add_module(sl_vm *vm, const char *name, sl_val m)
{
    if (vm->nmods == vm->modcap) {
        vm->modcap = vm->modcap ? vm->modcap * 2 : 8;
        vm->mods = xrealloc(vm->mods, (size_t)vm->modcap * sizeof *vm->mods);
    }
    vm->mods[vm->nmods++] = (sl_named){name, m};
}

/* ---- errors ---- */
static void unwind(sl_vm *vm, sl_catch *c)
{
    while (vm->niters > c->iters) {
        sl_val coll = vm->iters[--vm->niters].coll;
        if (coll && !IS_SMALL(coll) && coll->iters)
            coll->iters--;
    }
    vm->depth = c->depth;
    vm->frame = c->frame;
    vm->nest = 0;
}

_Noreturn static void raise(sl_vm *vm, int line, int col)
{
    snprintf(vm->err, sizeof vm->err, "%s:%d:%d: %s", vm->file ? vm->file : "<script>", line, col, vm->msg);
    sl_catch *c = vm->catcher;
    if (!c)
        abort(); /* sl_exec always sets one: reaching here is a bug */
    unwind(vm, c);
    longjmp(c->jb, 1);
}

void sl_fail(sl_vm *vm, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->msg, sizeof vm->msg, fmt, ap);
    va_end(ap);
    ast *pos = vm->frame ? vm->frame->pos : NULL;
    raise(vm, pos ? pos->line : 0, pos ? pos->col : 0);
}

void vm_fail_at(sl_vm *vm, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->msg, sizeof vm->msg, fmt, ap);
    va_end(ap);
    raise(vm, line, col);
}

/* ---- iteration ---- */
void iter_begin(sl_vm *vm, sl_iter *it, sl_val v)
{
    it->coll = v;
    it->i = 0;
    it->tracked = false;
    switch (TYPE(v)) {
    case SL_LIST:
    case SL_DICT:
    case SL_SET:
        if (vm->niters == vm->itercap) {
            vm->itercap = vm->itercap ? vm->itercap * 2 : 16;
            vm->iters = xrealloc(vm->iters, vm->itercap * sizeof *vm->iters);
        }
        vm->iters[vm->niters++].coll = v;
        v->iters++;
        it->tracked = true;
        break;
    case SL_TUPLE:
    case SL_RANGE:
    case SL_ELEMS: break;
    case SL_HOST:
        if (AS(sl_host_o, v)->t->next)
            break;
        sl_fail(vm, "%s value is not iterable", sl_type_name(v));
    default: sl_fail(vm, "%s value is not iterable", sl_type_name(v));
    }
}

bool iter_next(sl_vm *vm, sl_iter *it, sl_val *out)
{
    sl_val v = it->coll;
    switch (TYPE(v)) {
    case SL_HOST: return AS(sl_host_o, v)->t->next(vm, v, it->i++, out);
    case SL_LIST:
        if (it->i >= AS(sl_list_o, v)->len)
            return false;
        *out = AS(sl_list_o, v)->v[it->i++];
        return true;
    case SL_TUPLE:
        if (it->i >= AS(sl_tuple_o, v)->len)
            return false;
        *out = AS(sl_tuple_o, v)->v[it->i++];
        return true;
    case SL_DICT:
    case SL_SET: {
        sl_dict_o *d = AS(sl_dict_o, v);
        while (it->i < d->n && !d->e[it->i].k)
            it->i++;
        if (it->i >= d->n)
            return false;
        *out = d->e[it->i++].k;
        return true;
    }
    case SL_RANGE: {
        sl_range_o *r = AS(sl_range_o, v);
        if ((int64_t)it->i >= r->len)
            return false;
        *out = sl_int(vm, r->start + (int64_t)it->i++ * r->step);
        return true;
    }
    case SL_ELEMS: {
        sl_elems_o *e = AS(sl_elems_o, v);
        sl_str_o *s = AS(sl_str_o, e->s);
        if (it->i >= s->len)
            return false;
        if (e->kind == 0 || e->kind == 1 || e->kind == 4) {
            unsigned char c = (unsigned char)s->s[it->i++];
            *out = e->kind == 0 ? mk_str(vm, (const char *)&c, 1, false) : MK_SMALL(c);
            return true;
        }
        size_t k;
        uint32_t cp = utf8_next(s->s + it->i, s->len - it->i, &k);
        if (e->kind == 2) /* a byte of invalid UTF-8 is the text of U+FFFD (go.starlark.net, string.star) */
            *out = cp == 0xfffd ? mk_str(vm, "\xef\xbf\xbd", 3, false) : mk_str(vm, s->s + it->i, k, false);
        else
            *out = MK_SMALL(cp);
        it->i += k;
        return true;
    }
    default: return false;
    }
}

void iter_end(sl_vm *vm, sl_iter *it)
{
    if (!it->tracked)
        return;
    it->coll->iters--;
    vm->niters--;
    it->tracked = false;
}

/* What a builtin may iterate; a for loop and a comprehension say "X value is not iterable" (iter_begin), a builtin
 * "got X, want iterable", as go.starlark.net's do (string.star). */
bool callable(sl_val v) { return TYPE(v) == SL_FUNCTION || TYPE(v) == SL_BUILTIN; }

bool iterable(sl_val v)
{
    switch (TYPE(v)) {
    case SL_LIST:
    case SL_DICT:
    case SL_SET:
    case SL_TUPLE:
    case SL_RANGE:
    case SL_ELEMS: return true;
    case SL_HOST: return AS(sl_host_o, v)->t->next != NULL;
    default: return false;
    }
}

sl_val *iter_all(sl_vm *vm, sl_val v, size_t *n)
{
    if (!iterable(v))
        sl_fail(vm, "got %s, want iterable", sl_type_name(v));
    switch (TYPE(v)) {
    case SL_LIST:
        *n = AS(sl_list_o, v)->len;
        return AS(sl_list_o, v)->v;
    case SL_TUPLE:
        *n = AS(sl_tuple_o, v)->len;
        return AS(sl_tuple_o, v)->v;
    default: break;
    }
    sl_val l = sl_list(vm, 0);
    sl_iter it;
    iter_begin(vm, &it, v);
    sl_val x;
    while (iter_next(vm, &it, &x)) {
        vm_steps(vm, 1);
        sl_list_append(vm, l, x);
    }
    iter_end(vm, &it);
    *n = AS(sl_list_o, l)->len;
    return AS(sl_list_o, l)->v;
}

/* ---- calls ---- */
static sl_val exec_function(sl_vm *vm, sl_func_o *fn, int nargs, sl_val *args, int nkw, sl_val *kw);

sl_val sl_call(sl_vm *vm, sl_val fn, int nargs, sl_val *args, int nkw, sl_val *kw)
{
    vm_steps(vm, 1);
    if (TYPE(fn) == SL_BUILTIN) {
        sl_builtin_o *b = AS(sl_builtin_o, fn);
        return b->fn(vm, b->self, nargs, args, nkw, kw, b->data);
    }
    if (TYPE(fn) == SL_FUNCTION)
        return exec_function(vm, AS(sl_func_o, fn), nargs, args, nkw, kw);
    sl_fail(vm, "invalid call of non-function (%s)", sl_type_name(fn));
}

sl_val sl_call_protected(sl_vm *vm, sl_val fn, int nargs, sl_val *args)
{
    sl_catch c;
    c.outer = vm->catcher;
    c.iters = vm->niters;
    c.depth = vm->depth;
    c.frame = vm->frame;
    vm->catcher = &c;
    if (setjmp(c.jb)) {
        vm->catcher = c.outer;
        return NULL;
    }
    sl_val r = sl_call(vm, fn, nargs, args, 0, NULL);
    vm->catcher = c.outer;
    return r;
}

static sl_val eval(sl_vm *vm, sl_frame *f, ast *e);
static int exec_block(sl_vm *vm, sl_frame *f, ast **body, int n, sl_val *ret);

static void set_local(sl_frame *f, int i, sl_val v)
{
    if (f->fi->cell[i])
        AS(sl_cell_o, f->locals[i])->v = v;
    else
        f->locals[i] = v;
}

static sl_val mk_cell(sl_vm *vm, sl_val v)
{
    sl_cell_o *c = vm_alloc(vm, sizeof *c);
    c->h.type = SL_CELL;
    c->v = v;
    return (sl_val)c;
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static sl_val exec_function(sl_vm *vm, sl_func_o *fn, int nargs, sl_val *args, int nkw, sl_val *kw)
{
    sl_funcinfo *fi = fn->fi;
    char here;
    if (vm->depth >= vm->lim.max_depth)
        sl_fail(vm, "calls nested more than %u deep (CMP_STARLARK_MAX_DEPTH)", vm->lim.max_depth);
    /* whatever the limit says, the C stack is what the calls really use (each call is several C frames deep) */
    if (vm->stack_base && vm->stack_base - &here > STACK_BUDGET)
        sl_fail(vm, "calls nested too deep (%u) for the interpreter's stack (CMP_STARLARK_MAX_DEPTH)", vm->depth);
    sl_val *locals = vm_alloc(vm, (size_t)(fi->nlocals ? fi->nlocals : 1) * sizeof(sl_val));
    int named = fi->npos + fi->nkwonly;
    /* positional */
    int npos = nargs < fi->npos ? nargs : fi->npos;
    for (int i = 0; i < npos; i++)
        locals[i] = args[i];
    if (nargs > fi->npos) {
        if (fi->varargs < 0)
            sl_fail(vm, "function %s accepts %s%d positional argument%s (%d given)", fi->name,
                    fi->ndefaults || fi->nkwonly ? "at most " : "", fi->npos, plural(fi->npos), nargs);
        locals[fi->varargs] = sl_tuple(vm, (size_t)(nargs - fi->npos), args + fi->npos);
    } else if (fi->varargs >= 0)
        locals[fi->varargs] = mk_tuple(vm, 0);
    sl_val kwdict = NULL;
    if (fi->kwargs >= 0)
        locals[fi->kwargs] = kwdict = mk_dict(vm, SL_DICT);
    for (int k = 0; k < nkw; k++) {
        size_t len;
        const char *name = sl_str_data(kw[2 * k], &len);
        int i;
        for (i = 0; i < named; i++)
            if (!strcmp(fi->localnames[i], name))
                break;
        if (i < named) {
            if (locals[i])
                sl_fail(vm, "function %s got multiple values for parameter \"%s\"", fi->name, name);
            locals[i] = kw[2 * k + 1];
            continue;
        }
        if (!kwdict) {
            const char *near = sl_nearest(name, fi->localnames, named);
            if (near)
                sl_fail(vm, "function %s got an unexpected keyword argument \"%s\" (did you mean %s?)", fi->name, name,
                        near);
            sl_fail(vm, "function %s got an unexpected keyword argument \"%s\"", fi->name, name);
        }
        if (dict_find(vm, kwdict, kw[2 * k]))
            sl_fail(vm, "function %s got multiple values for parameter \"%s\"", fi->name, name);
        dict_put(vm, kwdict, kw[2 * k], kw[2 * k + 1]);
    }
    /* defaults and what is missing */
    int missing = 0;
    const char *first_missing = NULL;
    for (int i = 0; i < named; i++) {
        if (locals[i])
            continue;
        if (fi->default_of[i] >= 0)
            locals[i] = fn->defaults[fi->default_of[i]];
        else {
            if (!missing)
                first_missing = fi->localnames[i];
            missing++;
        }
    }
    if (missing) {
        sbuf b;
        sb_init(&b, vm);
        for (int i = 0, k = 0; i < named; i++)
            if (!locals[i] && fi->default_of[i] < 0)
                sb_printf(&b, "%s%s", k++ ? ", " : "", fi->localnames[i]);
        (void)first_missing;
        sl_fail(vm, "function %s missing %d argument%s (%s)", fi->name, missing, plural(missing), b.s);
    }
    for (int i = 0; i < fi->nlocals; i++)
        if (fi->cell[i])
            locals[i] = mk_cell(vm, locals[i]);
    sl_frame fr = {0};
    fr.parent = vm->frame;
    fr.fi = fi;
    fr.locals = locals;
    fr.free = fn->free;
    fr.mod = fn->mod;
    fr.fname = fi->name;
    vm->depth++;
    vm->frame = &fr;
    sl_val ret = NONE;
    exec_block(vm, &fr, fi->body, fi->nbody, &ret);
    vm->frame = fr.parent;
    vm->depth--;
    return ret;
}

static sl_val make_function(sl_vm *vm, sl_frame *f, sl_funcinfo *fi)
{
    sl_func_o *fn = vm_alloc(vm, sizeof *fn);
    fn->h.type = SL_FUNCTION;
    fn->fi = fi;
    fn->mod = f->mod;
    fn->defaults = vm_alloc(vm, (size_t)(fi->ndefaults ? fi->ndefaults : 1) * sizeof(sl_val));
    for (int i = 0, d = 0; i < fi->nparams; i++)
        if (fi->params[i]->kind == E_ARG_KW)
            fn->defaults[d++] = eval(vm, f, fi->params[i]->b);
    fn->free = vm_alloc(vm, (size_t)(fi->nfree ? fi->nfree : 1) * sizeof(sl_val));
    for (int i = 0; i < fi->nfree; i++)
        fn->free[i] = fi->freevars[i].outer_local ? f->locals[fi->freevars[i].index] : f->free[fi->freevars[i].index];
    return (sl_val)fn;
}

/* ---- operators ---- */
static bool is_num(sl_val v) { return TYPE(v) == SL_INT || TYPE(v) == SL_FLOAT; }

static double to_float(sl_vm *vm, sl_val v)
{
    if (TYPE(v) == SL_FLOAT)
        return AS(sl_float_o, v)->d;
    bool ovf;
    double d = int_to_double(v, &ovf);
    if (ovf)
        sl_fail(vm, "int too large to convert to float");
    return d;
}

static const char *opstr(int op)
{
    switch (op) {
    case T_PLUS: return "+";
    case T_MINUS: return "-";
    case T_STAR: return "*";
    case T_SLASH: return "/";
    case T_SLASHSLASH: return "//";
    case T_PERCENT: return "%";
    case T_AMP: return "&";
    case T_PIPE: return "|";
    case T_CIRCUMFLEX: return "^";
    case T_LTLT: return "<<";
    case T_GTGT: return ">>";
    case T_IN: return "in";
    case T_NOT_IN: return "not in";
    default: return "?";
    }
}

static sl_val repeat(sl_vm *vm, sl_val seq, sl_val count)
{
    int64_t n;
    /* go.starlark.net's two refusals first (tuple.star): a count beyond int32, a result beyond 2^30 elements;
     * the operator's CMP_STARLARK_MAX_LEN then holds below that */
    if (!sl_as_int64(count, &n) || n > INT32_MAX || n < INT32_MIN)
        sl_fail(vm, "repeat count %s too large", sl_repr(vm, count));
    if (n < 0)
        n = 0;
    int t = TYPE(seq);
    size_t len = t == SL_LIST ? AS(sl_list_o, seq)->len : t == SL_TUPLE ? AS(sl_tuple_o, seq)->len : AS(sl_str_o, seq)->len;
    if (len && (uint64_t)n > ((uint64_t)1 << 30) / len)
        sl_fail(vm, "excessive repeat (%zu * %lld elements)", len, (long long)n);
    if (len && (uint64_t)n > vm->lim.max_len / len)
        vm_check_len(vm, (uint64_t)n > UINT64_MAX / len ? UINT64_MAX : (uint64_t)n * len,
                     t == SL_STRING ? "a string" : t == SL_BYTES ? "bytes" : t == SL_LIST ? "a list" : "a tuple");
    size_t total = len * (size_t)n;
    vm_steps(vm, total / 16);
    if (t == SL_STRING || t == SL_BYTES) {
        sl_str_o *s = AS(sl_str_o, seq);
        sl_val r = mk_str(vm, "", 0, t == SL_BYTES);
        if (!total)
            return r;
        sl_str_o *o = vm_alloc_raw(vm, sizeof *o + total + 1);
        memset(o, 0, sizeof *o);
        o->h.type = (uint8_t)t;
        o->h.frozen = 1;
        o->len = total;
        for (int64_t i = 0; i < n; i++)
            memcpy(o->s + (size_t)i * len, s->s, len);
        o->s[total] = 0;
        return (sl_val)o;
    }
    const sl_val *src = t == SL_LIST ? AS(sl_list_o, seq)->v : AS(sl_tuple_o, seq)->v;
    sl_val r = t == SL_LIST ? sl_list(vm, total) : mk_tuple(vm, total);
    sl_val *dst = t == SL_LIST ? AS(sl_list_o, r)->v : AS(sl_tuple_o, r)->v;
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + (size_t)i * len, src, len * sizeof(sl_val));
    if (t == SL_LIST)
        AS(sl_list_o, r)->len = total;
    return r;
}

static sl_val set_op(sl_vm *vm, int op, sl_val a, sl_val b)
{
    sl_val r = mk_dict(vm, SL_SET);
    sl_dict_o *x = AS(sl_dict_o, a), *y = AS(sl_dict_o, b);
    vm_steps(vm, x->len + y->len);
    for (size_t i = 0; i < x->n; i++) {
        sl_val k = x->e[i].k;
        if (!k)
            continue;
        bool in_b = dict_find(vm, b, k) != NULL;
        if (op == T_PIPE || (op == T_AMP && in_b) || ((op == T_MINUS || op == T_CIRCUMFLEX) && !in_b))
            dict_put(vm, r, k, NONE);
    }
    if (op == T_PIPE || op == T_CIRCUMFLEX)
        for (size_t i = 0; i < y->n; i++) {
            sl_val k = y->e[i].k;
            if (k && !dict_find(vm, a, k))
                dict_put(vm, r, k, NONE);
        }
    return r;
}

static bool contains(sl_vm *vm, sl_val x, sl_val y)
{
    switch (TYPE(y)) {
    case SL_LIST:
    case SL_TUPLE: {
        size_t n = sl_len(y);
        for (size_t i = 0; i < n; i++) {
            vm_steps(vm, 1);
            if (vm_equal(vm, sl_index(y, i), x))
                return true;
        }
        return false;
    }
    case SL_DICT: { /* an unhashable key is simply not in a dict (builtins.star: [] not in {123: ""}) */
        int tx = TYPE(x);
        if (tx == SL_LIST || tx == SL_DICT || tx == SL_SET || tx == SL_RANGE)
            return false;
        return dict_find(vm, y, x) != NULL;
    }
    case SL_SET: return dict_find(vm, y, x) != NULL;
    case SL_STRING:
    case SL_BYTES: {
        sl_str_o *s = AS(sl_str_o, y);
        if (TYPE(y) == SL_BYTES && TYPE(x) == SL_INT) {
            int64_t b;
            if (!sl_as_int64(x, &b) || b < 0 || b > 255)
                sl_fail(vm, "int in bytes: %s out of range", sl_repr(vm, x));
            return memchr(s->s, (int)b, s->len) != NULL;
        }
        if (TYPE(x) != TYPE(y))
            sl_fail(vm, "'in <%s>' requires %s as left operand, not %s", sl_type_name(y),
                    TYPE(y) == SL_BYTES ? "bytes or int" : "string", sl_type_name(x));
        sl_str_o *sub = AS(sl_str_o, x);
        vm_steps(vm, s->len / 16);
        if (!sub->len)
            return true;
        return sl_find(vm, s->s, s->len, sub->s, sub->len) != NULL;
    }
    case SL_RANGE: {
        sl_range_o *r = AS(sl_range_o, y);
        int64_t i;
        if (TYPE(x) == SL_FLOAT) { /* go's NumberToInt: truncated (2.5 in range(3)); no int for inf or NaN */
            double d = AS(sl_float_o, x)->d;
            if (!isfinite(d))
                sl_fail(vm, "'in <range>' requires integer as left operand, not float");
            d = trunc(d);
            if (!(fabs(d) < 9e18))
                return false;
            i = (int64_t)d;
        } else if (TYPE(x) != SL_INT)
            sl_fail(vm, "'in <range>' requires integer as left operand, not %s", sl_type_name(x));
        else if (!sl_as_int64(x, &i))
            return false;
        if (r->len == 0)
            return false;
        if (r->step > 0 ? (i < r->start || i >= r->stop) : (i > r->start || i <= r->stop))
            return false;
        return (i - r->start) % r->step == 0;
    }
    default: sl_fail(vm, "unknown binary op: %s in %s", sl_type_name(x), sl_type_name(y));
    }
}

sl_val vm_binary(sl_vm *vm, int op, sl_val x, sl_val y)
{
    int tx = TYPE(x), ty = TYPE(y);
    switch (op) {
    case T_PLUS:
        if (tx == SL_INT && ty == SL_INT)
            return int_add(vm, x, y);
        if (is_num(x) && is_num(y))
            return sl_float(vm, to_float(vm, x) + to_float(vm, y));
        if ((tx == SL_STRING || tx == SL_BYTES) && tx == ty) {
            sl_str_o *a = AS(sl_str_o, x), *b = AS(sl_str_o, y);
            if (!b->len)
                return x;
            if (!a->len)
                return y;
            vm_check_len(vm, (uint64_t)a->len + b->len, tx == SL_STRING ? "a string" : "bytes");
            vm_steps(vm, (a->len + b->len) / 64);
            sl_str_o *o = vm_alloc_raw(vm, sizeof *o + a->len + b->len + 1);
            memset(o, 0, sizeof *o);
            o->h.type = (uint8_t)tx;
            o->h.frozen = 1;
            o->len = a->len + b->len;
            memcpy(o->s, a->s, a->len);
            memcpy(o->s + a->len, b->s, b->len);
            o->s[o->len] = 0;
            return (sl_val)o;
        }
        if ((tx == SL_LIST || tx == SL_TUPLE) && tx == ty) {
            size_t an = sl_len(x), bn = sl_len(y);
            vm_check_len(vm, (uint64_t)an + bn, tx == SL_LIST ? "a list" : "a tuple");
            vm_steps(vm, (an + bn) / 16);
            sl_val r = tx == SL_LIST ? sl_list(vm, an + bn) : mk_tuple(vm, an + bn);
            sl_val *d = tx == SL_LIST ? AS(sl_list_o, r)->v : AS(sl_tuple_o, r)->v;
            if (an)
                memcpy(d, tx == SL_LIST ? AS(sl_list_o, x)->v : AS(sl_tuple_o, x)->v, an * sizeof(sl_val));
            if (bn)
                memcpy(d + an, tx == SL_LIST ? AS(sl_list_o, y)->v : AS(sl_tuple_o, y)->v, bn * sizeof(sl_val));
            if (tx == SL_LIST)
                AS(sl_list_o, r)->len = an + bn;
            return r;
        }
        break;
    case T_MINUS:
        if (tx == SL_INT && ty == SL_INT)
            return int_sub(vm, x, y);
        if (is_num(x) && is_num(y))
            return sl_float(vm, to_float(vm, x) - to_float(vm, y));
        if (tx == SL_SET && ty == SL_SET)
            return set_op(vm, op, x, y);
        break;
    case T_STAR:
        if (tx == SL_INT && ty == SL_INT)
            return int_mul(vm, x, y);
        if (is_num(x) && is_num(y))
            return sl_float(vm, to_float(vm, x) * to_float(vm, y));
        if (ty == SL_INT && (tx == SL_STRING || tx == SL_BYTES || tx == SL_LIST || tx == SL_TUPLE))
            return repeat(vm, x, y);
        if (tx == SL_INT && (ty == SL_STRING || ty == SL_BYTES || ty == SL_LIST || ty == SL_TUPLE))
            return repeat(vm, y, x);
        break;
    case T_SLASH:
        if (is_num(x) && is_num(y)) {
            double b = to_float(vm, y);
            if (b == 0)
                sl_fail(vm, "floating-point division by zero");
            return sl_float(vm, to_float(vm, x) / b);
        }
        break;
    case T_SLASHSLASH:
        if (tx == SL_INT && ty == SL_INT)
            return int_floordiv(vm, x, y);
        if (is_num(x) && is_num(y)) {
            double b = to_float(vm, y);
            if (b == 0)
                sl_fail(vm, "floored division by zero");
            return sl_float(vm, floor(to_float(vm, x) / b));
        }
        break;
    case T_PERCENT:
        if (tx == SL_INT && ty == SL_INT)
            return int_mod(vm, x, y);
        if (is_num(x) && is_num(y)) {
            double a = to_float(vm, x), b = to_float(vm, y);
            if (b == 0)
                sl_fail(vm, "floating-point modulo by zero");
            double r = fmod(a, b);
            if (r != 0 && ((r < 0) != (b < 0)))
                r += b;
            else if (r == 0)
                r = copysign(0, b);
            return sl_float(vm, r);
        }
        if (tx == SL_STRING)
            return str_percent(vm, x, y);
        break;
    case T_AMP:
    case T_PIPE:
    case T_CIRCUMFLEX:
        if (tx == SL_INT && ty == SL_INT)
            return int_bitop(vm, op, x, y);
        if (tx == SL_SET && ty == SL_SET)
            return set_op(vm, op, x, y);
        if (op == T_PIPE && tx == SL_DICT && ty == SL_DICT) {
            sl_val r = mk_dict(vm, SL_DICT);
            for (int k = 0; k < 2; k++) {
                sl_dict_o *d = AS(sl_dict_o, k ? y : x);
                for (size_t i = 0; i < d->n; i++)
                    if (d->e[i].k)
                        dict_put(vm, r, d->e[i].k, d->e[i].v);
            }
            return r;
        }
        break;
    case T_LTLT:
    case T_GTGT:
        if (tx == SL_INT && ty == SL_INT)
            return int_shift(vm, op == T_LTLT, x, y);
        break;
    case T_IN: return contains(vm, x, y) ? TRUE_V : FALSE_V;
    case T_NOT_IN: return contains(vm, x, y) ? FALSE_V : TRUE_V;
    case T_EQL:
    case T_NEQ:
    case T_LT:
    case T_GT:
    case T_LE:
    case T_GE: return vm_cmp_op(vm, op, x, y) ? TRUE_V : FALSE_V;
    default: break;
    }
    /* a host's type may define the operator, on either side */
    if (TYPE(x) == SL_HOST || TYPE(y) == SL_HOST) {
        bool left = TYPE(x) == SL_HOST;
        const sl_host_type *ht = AS(sl_host_o, left ? x : y)->t;
        sl_val r = ht->binary ? ht->binary(vm, opstr(op)[0], x, y, left) : NULL;
        if (r)
            return r;
    }
    sl_fail(vm, "unknown binary op: %s %s %s", sl_type_name(x), opstr(op), sl_type_name(y));
}

/* ---- indexing and attributes ---- */
static int64_t index_of(sl_vm *vm, sl_val k, int64_t len, const char *what)
{
    int64_t i;
    if (TYPE(k) != SL_INT)
        sl_fail(vm, "%s index: got %s, want int", what, sl_type_name(k));
    if (!sl_as_int64(k, &i))
        sl_fail(vm, "%s index %s out of range", what, sl_repr(vm, k));
    int64_t orig = i;
    if (i < 0)
        i += len;
    if (i < 0 || i >= len) {
        if (len == 0)
            sl_fail(vm, "index %lld out of range: empty %s", (long long)orig, what);
        sl_fail(vm, "%s index %lld out of range [%lld:%lld]", what, (long long)orig, (long long)-len, (long long)(len - 1));
    }
    return i;
}

sl_val vm_index(sl_vm *vm, sl_val v, sl_val k)
{
    switch (TYPE(v)) {
    case SL_LIST: return AS(sl_list_o, v)->v[index_of(vm, k, (int64_t)AS(sl_list_o, v)->len, "list")];
    case SL_TUPLE: return AS(sl_tuple_o, v)->v[index_of(vm, k, (int64_t)AS(sl_tuple_o, v)->len, "tuple")];
    case SL_STRING: {
        sl_str_o *s = AS(sl_str_o, v);
        return mk_str(vm, s->s + index_of(vm, k, (int64_t)s->len, "string"), 1, false);
    }
    case SL_BYTES: {
        sl_str_o *s = AS(sl_str_o, v);
        return mk_str(vm, s->s + index_of(vm, k, (int64_t)s->len, "bytes"), 1, true); /* a bytes of one */
    }
    case SL_RANGE: {
        sl_range_o *r = AS(sl_range_o, v);
        return sl_int(vm, r->start + index_of(vm, k, r->len, "range") * r->step);
    }
    case SL_DICT: {
        sl_entry *e = dict_find(vm, v, k);
        if (!e)
            sl_fail(vm, "key %s not in dict", sl_repr(vm, k));
        return e->v;
    }
    case SL_ELEMS: { /* elems() and elem_ords() are indexable, by byte; codepoints are not (string.star) */
        sl_elems_o *el = AS(sl_elems_o, v);
        if (el->kind == 2 || el->kind == 3)
            break;
        sl_str_o *s = AS(sl_str_o, el->s);
        unsigned char c = (unsigned char)s->s[index_of(vm, k, (int64_t)s->len, sl_type_name(v))];
        return el->kind == 0 ? mk_str(vm, (const char *)&c, 1, false) : MK_SMALL(c);
    }
    default: break;
    }
    sl_fail(vm, "unhandled index operation %s[%s]", sl_type_name(v), sl_type_name(k));
}

void vm_setindex(sl_vm *vm, sl_val v, sl_val k, sl_val x)
{
    switch (TYPE(v)) {
    case SL_LIST: {
        sl_list_o *l = AS(sl_list_o, v);
        int64_t i = index_of(vm, k, (int64_t)l->len, "list");
        if (v->frozen)
            sl_fail(vm, "cannot assign to element of frozen list");
        if (v->iters)
            sl_fail(vm, "cannot assign to element of list during iteration");
        l->v[i] = x;
        return;
    }
    case SL_DICT:
        if (v->frozen)
            sl_fail(vm, "cannot insert into frozen hash table");
        if (v->iters)
            sl_fail(vm, "cannot insert into hash table during iteration");
        dict_put(vm, v, k, x);
        return;
    default: sl_fail(vm, "%s value does not support item assignment", sl_type_name(v));
    }
}

/* a spelling hint among a host value's field names, as go.starlark.net gives for any HasAttrs */
static const char *host_nearest(sl_vm *vm, sl_val x, const char *name)
{
    const sl_host_type *t = AS(sl_host_o, x)->t;
    const char **names = NULL;
    int n = t->attrnames ? t->attrnames(vm, x, &names) : 0;
    return n > 0 ? sl_nearest(name, names, n) : NULL;
}

/* x.name = v: no value of the language has settable fields (a host's type may: sl_host_type.setattr) */
void vm_setattr(sl_vm *vm, sl_val x, const char *name, sl_val v)
{
    if (TYPE(x) == SL_HOST && AS(sl_host_o, x)->t->setattr) {
        const char *nosuch = AS(sl_host_o, x)->t->setattr(vm, x, name, v);
        if (!nosuch)
            return;
        const char *near = host_nearest(vm, x, name);
        sl_fail(vm, "%s%s%s%s", nosuch, near ? " (did you mean ." : "", near ? near : "", near ? "?)" : "");
    }
    sl_fail(vm, "can't assign to .%s field of %s", name, sl_type_name(x));
}

sl_val vm_getattr(sl_vm *vm, sl_val v, const char *name, bool must)
{
    if (TYPE(v) == SL_HOST) {
        sl_val r = AS(sl_host_o, v)->t->getattr ? AS(sl_host_o, v)->t->getattr(vm, v, name) : NULL;
        if (r || !must)
            return r;
        const char *near = host_nearest(vm, v, name);
        sl_fail(vm, "%s has no .%s field or method%s%s%s", sl_type_name(v), name, near ? " (did you mean ." : "",
                near ? near : "", near ? "?)" : "");
    }
    if (TYPE(v) == SL_STRUCT) {
        sl_struct_o *s = AS(sl_struct_o, v);
        for (int i = 0; i < s->n; i++)
            if (!strcmp(s->names[i], name))
                return s->vals[i];
        if (!must)
            return NULL;
        const char *near = sl_nearest(name, s->names, s->n);
        if (v->flags & 1)
            sl_fail(vm, "module has no .%s field or method%s%s%s", name, near ? " (did you mean ." : "", near ? near : "",
                    near ? "?)" : "");
        sl_fail(vm, "%s struct has no .%s attribute%s%s%s", s->ctor, name, near ? " (did you mean ." : "",
                near ? near : "", near ? "?)" : "");
    }
    sl_val m = method_lookup(vm, v, name);
    if (m || !must)
        return m;
    int nm;
    const char **mn = method_names(v, &nm);
    const char *near = sl_nearest(name, mn, nm);
    sl_fail(vm, "%s has no .%s field or method%s%s%s", sl_type_name(v), name, near ? " (did you mean ." : "",
            near ? near : "", near ? "?)" : "");
}

static sl_val slice(sl_vm *vm, sl_val v, sl_val lo, sl_val hi, sl_val st)
{
    int t = TYPE(v);
    int64_t len;
    switch (t) {
    case SL_LIST: len = (int64_t)AS(sl_list_o, v)->len; break;
    case SL_TUPLE: len = (int64_t)AS(sl_tuple_o, v)->len; break;
    case SL_STRING:
    case SL_BYTES: len = (int64_t)AS(sl_str_o, v)->len; break;
    case SL_RANGE: len = AS(sl_range_o, v)->len; break;
    default: sl_fail(vm, "invalid slice operand %s", sl_type_name(v));
    }
    int64_t start, stop, step;
    slice_indices(vm, len, lo, hi, st, &start, &stop, &step);
    int64_t n = 0;
    if (step > 0 && stop > start)
        n = (stop - start + step - 1) / step;
    else if (step < 0 && stop < start)
        n = (start - stop + (-step) - 1) / (-step);
    vm_steps(vm, (uint64_t)n / 16);
    if (t == SL_RANGE) {
        sl_range_o *r = AS(sl_range_o, v), *o = vm_alloc(vm, sizeof *o);
        o->h.type = SL_RANGE;
        o->h.frozen = 1;
        o->start = r->start + start * r->step;
        o->step = r->step * step;
        o->len = n;
        o->stop = o->start + n * o->step;
        return (sl_val)o;
    }
    if (t == SL_STRING || t == SL_BYTES) {
        sl_str_o *s = AS(sl_str_o, v);
        if (step == 1)
            return mk_str(vm, s->s + start, (size_t)n, t == SL_BYTES);
        char *buf = vm_alloc_raw(vm, (size_t)n + 1);
        for (int64_t i = 0; i < n; i++)
            buf[i] = s->s[start + i * step];
        return mk_str(vm, buf, (size_t)n, t == SL_BYTES);
    }
    const sl_val *src = t == SL_LIST ? AS(sl_list_o, v)->v : AS(sl_tuple_o, v)->v;
    sl_val r = t == SL_LIST ? sl_list(vm, (size_t)n) : mk_tuple(vm, (size_t)n);
    sl_val *d = t == SL_LIST ? AS(sl_list_o, r)->v : AS(sl_tuple_o, r)->v;
    for (int64_t i = 0; i < n; i++)
        d[i] = src[start + i * step];
    if (t == SL_LIST)
        AS(sl_list_o, r)->len = (size_t)n;
    return r;
}

/* ---- expressions ---- */
static sl_val read_ident(sl_vm *vm, sl_frame *f, ast *e)
{
    sl_val v;
    switch (e->scope) {
    case SL_NONE: break;
    case SC_LOCAL:
        v = f->locals[e->index];
        if (v && f->fi->cell[e->index])
            v = AS(sl_cell_o, v)->v;
        if (!v) {
            f->pos = e;
            sl_fail(vm, "local variable %s referenced before assignment", e->name);
        }
        return v;
    case SC_FREE:
        v = AS(sl_cell_o, f->free[e->index])->v;
        if (!v) {
            f->pos = e;
            sl_fail(vm, "local variable %s referenced before assignment", e->name);
        }
        return v;
    case SC_GLOBAL:
        v = f->mod->globals[e->index];
        if (!v) {
            f->pos = e;
            sl_fail(vm, "global variable %s referenced before assignment", e->name);
        }
        return v;
    case SC_PREDECLARED: return e->val;
    }
    f->pos = e;
    sl_fail(vm, "unresolved name %s", e->name);
}

static void assign(sl_vm *vm, sl_frame *f, ast *t, sl_val v);

static void comp_clause(sl_vm *vm, sl_frame *f, ast *e, int ci, sl_val result)
{
    if (ci == e->n) {
        vm_steps(vm, 1);
        if (e->kind == E_LISTCOMP)
            sl_list_append(vm, result, eval(vm, f, e->a));
        else {
            sl_val k = eval(vm, f, e->a->a);
            sl_val v = eval(vm, f, e->a->b);
            f->pos = e->a;
            dict_put(vm, result, k, v);
        }
        return;
    }
    ast *c = e->list[ci];
    if (c->kind == E_CLAUSE_IF) {
        if (sl_truth(eval(vm, f, c->a)))
            comp_clause(vm, f, e, ci + 1, result);
        return;
    }
    sl_val it_v = eval(vm, f, c->b);
    f->pos = c;
    sl_iter it;
    iter_begin(vm, &it, it_v);
    sl_val x;
    while (iter_next(vm, &it, &x)) {
        assign(vm, f, c->a, x);
        comp_clause(vm, f, e, ci + 1, result);
    }
    iter_end(vm, &it);
}

static sl_val call_expr(sl_vm *vm, sl_frame *f, ast *e)
{
    sl_val fn = eval(vm, f, e->a);
    int cap = e->n + 4;
    sl_val *args = vm_alloc_raw(vm, (size_t)cap * sizeof(sl_val));
    sl_val *kw = NULL;
    int nargs = 0, nkw = 0, kwcap = 0;
    for (int i = 0; i < e->n; i++) {
        ast *a = e->list[i];
        if (a->kind == E_ARG_STAR) {
            sl_val v = eval(vm, f, a->a);
            f->pos = a;
            size_t n;
            if (TYPE(v) != SL_LIST && TYPE(v) != SL_TUPLE && TYPE(v) != SL_SET && TYPE(v) != SL_DICT &&
                TYPE(v) != SL_RANGE && TYPE(v) != SL_ELEMS)
                sl_fail(vm, "argument after * must be iterable, not %s", sl_type_name(v));
            sl_val *items = iter_all(vm, v, &n);
            vm_check_len(vm, (uint64_t)nargs + n, "an argument list");
            sl_val *na = vm_alloc_raw(vm, ((size_t)nargs + n + (size_t)(e->n - i)) * sizeof(sl_val));
            memcpy(na, args, (size_t)nargs * sizeof(sl_val));
            memcpy(na + nargs, items, n * sizeof(sl_val));
            args = na;
            nargs += (int)n;
            cap = nargs + (e->n - i);
        } else if (a->kind == E_ARG_STARSTAR || a->kind == E_ARG_KW) {
            sl_val v = eval(vm, f, a->a);
            f->pos = a;
            size_t add = a->kind == E_ARG_KW ? 1 : TYPE(v) == SL_DICT ? AS(sl_dict_o, v)->len : 0;
            if (a->kind == E_ARG_STARSTAR && TYPE(v) != SL_DICT)
                sl_fail(vm, "argument after ** must be a mapping, not %s", sl_type_name(v));
            if ((size_t)nkw + add > (size_t)kwcap) {
                kwcap = (int)((size_t)nkw + add) * 2 + 4;
                sl_val *nk = vm_alloc_raw(vm, (size_t)kwcap * 2 * sizeof(sl_val));
                if (nkw)
                    memcpy(nk, kw, (size_t)nkw * 2 * sizeof(sl_val));
                kw = nk;
            }
            if (a->kind == E_ARG_KW) {
                kw[2 * nkw] = mk_str(vm, a->name, strlen(a->name), false);
                kw[2 * nkw + 1] = v;
                nkw++;
            } else {
                sl_dict_o *d = AS(sl_dict_o, v);
                for (size_t j = 0; j < d->n; j++) {
                    if (!d->e[j].k)
                        continue;
                    if (TYPE(d->e[j].k) != SL_STRING)
                        sl_fail(vm, "keywords must be strings, not %s", sl_type_name(d->e[j].k));
                    kw[2 * nkw] = d->e[j].k;
                    kw[2 * nkw + 1] = d->e[j].v;
                    nkw++;
                }
            }
        } else {
            if (nargs == cap) {
                cap *= 2;
                sl_val *na = vm_alloc_raw(vm, (size_t)cap * sizeof(sl_val));
                memcpy(na, args, (size_t)nargs * sizeof(sl_val));
                args = na;
            }
            args[nargs++] = eval(vm, f, a);
        }
    }
    /* a keyword given twice (f(x=1, **{"x": 2})) is the callee's to report, in its words, as go.starlark.net does:
     * a def's "multiple values for parameter", unpack's "got multiple values for keyword argument", dict's
     * "duplicate keyword arg" (the resolver refuses a name written twice) */
    f->pos = e;
    return sl_call(vm, fn, nargs, args, nkw, kw);
}

static sl_val eval(sl_vm *vm, sl_frame *f, ast *e)
{
    switch (e->kind) {
    case E_IDENT: return read_ident(vm, f, e);
    case E_CONST: return e->val;
    case E_PAREN: return eval(vm, f, e->a);
    case E_LIST: {
        sl_val l = sl_list(vm, (size_t)e->n);
        for (int i = 0; i < e->n; i++)
            AS(sl_list_o, l)->v[i] = eval(vm, f, e->list[i]);
        AS(sl_list_o, l)->len = (size_t)e->n;
        return l;
    }
    case E_TUPLE: {
        sl_val *tmp = vm_alloc_raw(vm, (size_t)(e->n ? e->n : 1) * sizeof(sl_val));
        for (int i = 0; i < e->n; i++)
            tmp[i] = eval(vm, f, e->list[i]);
        return sl_tuple(vm, (size_t)e->n, tmp);
    }
    case E_DICT: {
        sl_val d = mk_dict(vm, SL_DICT);
        for (int i = 0; i < e->n; i++) {
            sl_val k = eval(vm, f, e->list[i]->a);
            sl_val v = eval(vm, f, e->list[i]->b);
            f->pos = e->list[i];
            if (dict_find(vm, d, k))
                sl_fail(vm, "duplicate key: %s", sl_repr(vm, k));
            dict_put(vm, d, k, v);
        }
        return d;
    }
    case E_LISTCOMP:
    case E_DICTCOMP: {
        sl_val r = e->kind == E_LISTCOMP ? sl_list(vm, 0) : mk_dict(vm, SL_DICT);
        comp_clause(vm, f, e, 0, r);
        return r;
    }
    case E_UNARY: {
        sl_val x = eval(vm, f, e->a);
        f->pos = e;
        switch (e->op) {
        case T_NOT: return sl_truth(x) ? FALSE_V : TRUE_V;
        case T_MINUS:
            if (TYPE(x) == SL_INT)
                return int_neg(vm, x);
            if (TYPE(x) == SL_FLOAT)
                return sl_float(vm, -AS(sl_float_o, x)->d);
            break;
        case T_PLUS:
            if (is_num(x))
                return x;
            break;
        case T_TILDE:
            if (TYPE(x) == SL_INT)
                return int_invert(vm, x);
            break;
        }
        sl_fail(vm, "unknown unary op: %s %s", e->op == T_MINUS ? "-" : e->op == T_PLUS ? "+" : "~", sl_type_name(x));
    }
    case E_BINARY: {
        sl_val x = eval(vm, f, e->a);
        sl_val y = eval(vm, f, e->b);
        f->pos = e;
        return vm_binary(vm, e->op, x, y);
    }
    case E_AND: {
        sl_val x = eval(vm, f, e->a);
        return sl_truth(x) ? eval(vm, f, e->b) : x;
    }
    case E_OR: {
        sl_val x = eval(vm, f, e->a);
        return sl_truth(x) ? x : eval(vm, f, e->b);
    }
    case E_COND: return sl_truth(eval(vm, f, e->b)) ? eval(vm, f, e->a) : eval(vm, f, e->c);
    case E_CALL: return call_expr(vm, f, e);
    case E_INDEX: {
        sl_val x = eval(vm, f, e->a);
        sl_val k = eval(vm, f, e->b);
        f->pos = e;
        return vm_index(vm, x, k);
    }
    case E_SLICE: {
        sl_val x = eval(vm, f, e->a);
        sl_val lo = e->b ? eval(vm, f, e->b) : NONE;
        sl_val hi = e->c ? eval(vm, f, e->c) : NONE;
        sl_val st = e->list2[0] ? eval(vm, f, e->list2[0]) : NONE;
        f->pos = e;
        return slice(vm, x, lo, hi, st);
    }
    case E_DOT: {
        sl_val x = eval(vm, f, e->a);
        f->pos = e;
        return vm_getattr(vm, x, e->name, true);
    }
    case E_LAMBDA: return make_function(vm, f, e->fi);
    default: sl_fail(vm, "cannot evaluate this expression");
    }
}

/* ---- statements ---- */
static void assign(sl_vm *vm, sl_frame *f, ast *t, sl_val v)
{
    switch (t->kind) {
    case E_IDENT:
        if (t->scope == SC_LOCAL)
            set_local(f, t->index, v);
        else if (t->scope == SC_FREE)
            AS(sl_cell_o, f->free[t->index])->v = v;
        else if (t->scope == SC_GLOBAL)
            f->mod->globals[t->index] = v;
        else {
            f->pos = t;
            sl_fail(vm, "cannot reassign predeclared %s", t->name);
        }
        return;
    case E_PAREN: assign(vm, f, t->a, v); return;
    case E_TUPLE:
    case E_LIST: {
        f->pos = t;
        int tv = TYPE(v);
        if (tv != SL_LIST && tv != SL_TUPLE && tv != SL_DICT && tv != SL_SET && tv != SL_RANGE && tv != SL_ELEMS)
            sl_fail(vm, "got %s in sequence assignment", sl_type_name(v));
        size_t n;
        sl_val *items = iter_all(vm, v, &n);
        if (n < (size_t)t->n)
            sl_fail(vm, "too few values to unpack (got %zu, want %d)", n, t->n);
        if (n > (size_t)t->n)
            sl_fail(vm, "too many values to unpack (got %zu, want %d)", n, t->n);
        /* copy: assigning may change the list being unpacked */
        sl_val *copy = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val));
        if (n)
            memcpy(copy, items, n * sizeof(sl_val));
        for (int i = 0; i < t->n; i++)
            assign(vm, f, t->list[i], copy[i]);
        return;
    }
    case E_INDEX: {
        sl_val x = eval(vm, f, t->a);
        sl_val k = eval(vm, f, t->b);
        f->pos = t;
        vm_setindex(vm, x, k, v);
        return;
    }
    case E_DOT: {
        sl_val x = eval(vm, f, t->a);
        f->pos = t;
        vm_setattr(vm, x, t->name, v);
        return;
    }
    default: f->pos = t; sl_fail(vm, "cannot assign to this expression");
    }
}

static void list_extend(sl_vm *vm, sl_val l, sl_val v)
{
    size_t n;
    check_mutable(vm, l, "extend");
    if (TYPE(v) == SL_STRING || TYPE(v) == SL_BYTES || TYPE(v) == SL_INT || TYPE(v) == SL_NONE || TYPE(v) == SL_BOOL ||
        TYPE(v) == SL_FLOAT || TYPE(v) == SL_FUNCTION || TYPE(v) == SL_BUILTIN || TYPE(v) == SL_STRUCT)
        sl_fail(vm, "unknown binary op: list += %s", sl_type_name(v));
    sl_val *items = iter_all(vm, v, &n);
    sl_val *copy = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val));
    if (n)
        memcpy(copy, items, n * sizeof(sl_val));
    vm_steps(vm, n / 16);
    for (size_t i = 0; i < n; i++)
        sl_list_append(vm, l, copy[i]);
}

/* x op= y, as go.starlark.net does it: list += iterable extends the list and dict |= dict updates the dict in
 * place (an alias sees it); anything else is x op y. The result is then stored back in every case, so a list
 * inside a tuple is extended and then the tuple refuses the store, as there. */
static sl_val inplace(sl_vm *vm, int op, sl_val x, sl_val y)
{
    int ty = TYPE(y);
    if (op == T_PLUS && TYPE(x) == SL_LIST &&
        (ty == SL_LIST || ty == SL_TUPLE || ty == SL_DICT || ty == SL_SET || ty == SL_RANGE || ty == SL_ELEMS)) {
        check_mutable(vm, x, "apply += to");
        list_extend(vm, x, y);
        return x;
    }
    if (op == T_PIPE && TYPE(x) == SL_DICT && ty == SL_DICT) {
        check_mutable(vm, x, "apply |= to");
        sl_dict_o *d = AS(sl_dict_o, y);
        vm_steps(vm, d->len / 16);
        for (size_t i = 0; i < d->n; i++)
            if (d->e[i].k)
                dict_put(vm, x, d->e[i].k, d->e[i].v);
        return x;
    }
    return vm_binary(vm, op, x, y);
}

static void aug_assign(sl_vm *vm, sl_frame *f, ast *s)
{
    ast *t = s->a;
    while (t->kind == E_PAREN)
        t = t->a;
    if (t->kind == E_IDENT) {
        sl_val x = read_ident(vm, f, t);
        sl_val y = eval(vm, f, s->b);
        f->pos = s;
        assign(vm, f, t, inplace(vm, s->op, x, y));
        return;
    }
    if (t->kind == E_INDEX) {
        sl_val obj = eval(vm, f, t->a);
        sl_val k = eval(vm, f, t->b);
        f->pos = t;
        sl_val x = vm_index(vm, obj, k);
        sl_val y = eval(vm, f, s->b);
        f->pos = s;
        sl_val r = inplace(vm, s->op, x, y);
        vm_setindex(vm, obj, k, r);
        return;
    }
    if (t->kind == E_DOT) {
        sl_val obj = eval(vm, f, t->a);
        f->pos = t;
        sl_val x = vm_getattr(vm, obj, t->name, true);
        sl_val y = eval(vm, f, s->b);
        f->pos = s;
        sl_val r = inplace(vm, s->op, x, y);
        f->pos = t;
        vm_setattr(vm, obj, t->name, r);
        return;
    }
    f->pos = s;
    sl_fail(vm, "cannot assign to this expression");
}

static int exec_block(sl_vm *vm, sl_frame *f, ast **body, int n, sl_val *ret)
{
    for (int i = 0; i < n; i++) {
        ast *s = body[i];
        f->pos = s;
        vm_steps(vm, 1);
        switch (s->kind) {
        case S_EXPR: eval(vm, f, s->a); break;
        case S_ASSIGN: {
            sl_val v = eval(vm, f, s->b);
            assign(vm, f, s->a, v);
            break;
        }
        case S_AUG: aug_assign(vm, f, s); break;
        case S_DEF: assign(vm, f, s->a, make_function(vm, f, s->fi)); break;
        case S_IF: {
            int r = sl_truth(eval(vm, f, s->a)) ? exec_block(vm, f, s->list, s->n, ret)
                                                : exec_block(vm, f, s->list2, s->n2, ret);
            if (r != NORMAL)
                return r;
            break;
        }
        case S_FOR: {
            sl_val it_v = eval(vm, f, s->b);
            f->pos = s;
            sl_iter it;
            iter_begin(vm, &it, it_v);
            sl_val x;
            int r = NORMAL;
            while (iter_next(vm, &it, &x)) {
                vm_steps(vm, 1);
                assign(vm, f, s->a, x);
                r = exec_block(vm, f, s->list, s->n, ret);
                if (r == BREAK || r == RETURN)
                    break;
                r = NORMAL;
            }
            iter_end(vm, &it);
            if (r == RETURN)
                return r;
            break;
        }
        case S_WHILE:
            for (;;) {
                vm_steps(vm, 1);
                f->pos = s;
                if (!sl_truth(eval(vm, f, s->a)))
                    break;
                int r = exec_block(vm, f, s->list, s->n, ret);
                if (r == BREAK)
                    break;
                if (r == RETURN)
                    return r;
            }
            break;
        case S_RETURN:
            *ret = s->a ? eval(vm, f, s->a) : NONE;
            return RETURN;
        case S_BREAK: return BREAK;
        case S_CONTINUE: return CONTINUE;
        case S_PASS: break;
        case S_LOAD: {
            size_t len;
            const char *name = sl_str_data(s->val, &len);
            sl_val m = NULL;
            for (int j = 0; j < vm->nmods; j++)
                if (!strcmp(vm->mods[j].name, name))
                    m = vm->mods[j].v;
            if (!m) {
                /* the modules there are, so that the author sees what to load instead */
                sbuf have;
                sb_init(&have, vm);
                for (int j = 0; j < vm->nmods; j++)
                    sb_printf(&have, "%s%s", j ? ", " : "", vm->mods[j].name);
                sl_fail(vm, "cannot load %s: no such module (this build offers %s)", name,
                        vm->nmods ? have.s : "none");
            }
            for (int j = 0; j < s->n; j++) {
                ast *b = s->list[j];
                const char *orig = sl_str_data(b->val, NULL);
                f->pos = b;
                sl_val v = vm_getattr(vm, m, orig, false);
                if (!v) {
                    const char *near = TYPE(m) == SL_STRUCT ? sl_nearest(orig, AS(sl_struct_o, m)->names,
                                                                         AS(sl_struct_o, m)->n) : NULL;
                    sl_fail(vm, "load: name %s not found in module %s%s%s%s", orig, name,
                            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
                }
                f->mod->globals[b->index] = v;
            }
            break;
        }
        default: break;
        }
    }
    return NORMAL;
}

/* A source as far as asked: parsed, resolved, or run to the end with its globals frozen. One catch for all three, so
 * that an error anywhere returns -1 with the VM as it was. */
enum upto { PARSED, RESOLVED, RUN };

static int run_source(sl_vm *vm, const char *name, const char *src, size_t len, enum upto upto)
{
    sl_catch c;
    c.outer = vm->catcher;
    c.iters = vm->niters;
    c.depth = vm->depth;
    c.frame = NULL;
    vm->catcher = &c;
    vm->file = name;
    vm->frame = NULL;
    char here;
    vm->stack_base = &here;
    if (setjmp(c.jb)) {
        vm->catcher = c.outer;
        return -1;
    }
    ast *file = parse_file(vm, src, len);
    sl_module *mod = upto >= RESOLVED ? resolve_file(vm, file) : NULL;
    if (upto == RUN) {
        mod->name = name;
        vm->last = mod;
        sl_funcinfo *top = mod->top;
        sl_frame fr = {0};
        fr.fi = top;
        fr.locals = vm_alloc(vm, (size_t)(top->nlocals ? top->nlocals : 1) * sizeof(sl_val));
        for (int i = 0; i < top->nlocals; i++)
            if (top->cell[i])
                fr.locals[i] = mk_cell(vm, NULL);
        fr.mod = mod;
        fr.fname = "<toplevel>";
        vm->frame = &fr;
        c.frame = &fr;
        sl_val ret = NONE;
        exec_block(vm, &fr, top->body, top->nbody, &ret);
        for (int i = 0; i < mod->nglobals; i++)
            if (mod->globals[i])
                sl_freeze(mod->globals[i]);
        vm->frame = NULL;
    }
    vm->catcher = c.outer;
    return 0;
}

int sl_check(sl_vm *vm, const char *name, const char *src, size_t len, bool resolve)
{
    return run_source(vm, name, src, len, resolve ? RESOLVED : PARSED);
}

int sl_exec(sl_vm *vm, const char *name, const char *src, size_t len)
{
    return run_source(vm, name, src, len, RUN);
}

int sl_protect(sl_vm *vm, const char *name, void (*fn)(sl_vm *vm, void *arg), void *arg)
{
    sl_catch c;
    c.outer = vm->catcher;
    c.iters = vm->niters;
    c.depth = vm->depth;
    c.frame = vm->frame;
    vm->catcher = &c;
    if (!vm->file)
        vm->file = name;
    if (setjmp(c.jb)) {
        vm->catcher = c.outer;
        return -1;
    }
    fn(vm, arg);
    vm->catcher = c.outer;
    return 0;
}

sl_val sl_global(sl_vm *vm, const char *name)
{
    if (!vm->last)
        return NULL;
    int i = module_global(vm, vm->last, name, false);
    return i >= 0 ? vm->last->globals[i] : NULL;
}
