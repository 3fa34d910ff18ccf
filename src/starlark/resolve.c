/* The resolver: every identifier is bound once, before anything runs, to a local slot, a variable captured from an
 * enclosing function (a cell), a global of the module, or a predeclared or universal value; a name bound nowhere is
 * an error at this point ("undefined: x"), as go.starlark.net reports it. A name assigned anywhere in a function is
 * local to all of it; comprehensions have a block of their own. The dialect is kpt's: global reassignment and
 * if/for/while at top level are allowed. */
#include <stdio.h>

#include "starlark/internal.h"

typedef struct block {
    struct block *parent;
    const char **names;
    int *index;
    int n, cap;
} block;

typedef struct fctx {
    struct fctx *parent;
    sl_funcinfo *fi;
    block *blk;   /* innermost block (the function's own at the bottom) */
    bool toplevel;
    int loops;
} fctx;

typedef struct {
    sl_vm *vm;
    sl_module *mod;
    fctx *f;
} resolver;

static void blk_add(resolver *r, block *b, const char *name, int idx)
{
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 8;
        const char **nn = vm_alloc_raw(r->vm, (size_t)cap * sizeof(char *));
        int *ni = vm_alloc_raw(r->vm, (size_t)cap * sizeof(int));
        if (b->n) {
            memcpy(nn, b->names, (size_t)b->n * sizeof(char *));
            memcpy(ni, b->index, (size_t)b->n * sizeof(int));
        }
        b->names = nn;
        b->index = ni;
        b->cap = cap;
    }
    b->names[b->n] = name;
    b->index[b->n++] = idx;
}

static int blk_find(block *b, const char *name)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->names[i], name))
            return b->index[i];
    return -1;
}

static int new_local(resolver *r, sl_funcinfo *fi, const char *name)
{
    if (fi->nlocals == fi->localcap) {
        int cap = fi->localcap ? fi->localcap * 2 : 8;
        const char **nn = vm_alloc(r->vm, (size_t)cap * sizeof(char *));
        bool *nc = vm_alloc(r->vm, (size_t)cap * sizeof(bool));
        if (fi->nlocals) {
            memcpy(nn, fi->localnames, (size_t)fi->nlocals * sizeof(char *));
            memcpy(nc, fi->cell, (size_t)fi->nlocals * sizeof(bool));
        }
        fi->localnames = nn;
        fi->cell = nc;
        fi->localcap = cap;
    }
    fi->localnames[fi->nlocals] = name;
    return fi->nlocals++;
}

int module_global(sl_vm *vm, sl_module *m, const char *name, bool add);
int module_global(sl_vm *vm, sl_module *m, const char *name, bool add)
{
    for (int i = 0; i < m->nglobals; i++)
        if (!strcmp(m->globnames[i], name))
            return i;
    if (!add)
        return -1;
    if (m->nglobals == m->globcap) {
        int cap = m->globcap ? m->globcap * 2 : 16;
        const char **nn = vm_alloc(vm, (size_t)cap * sizeof(char *));
        if (m->nglobals)
            memcpy(nn, m->globnames, (size_t)m->nglobals * sizeof(char *));
        m->globnames = nn;
        m->globcap = cap;
    }
    m->globnames[m->nglobals] = name;
    return m->nglobals++;
}

/* ---- pass 1: the names a function body (or the module) binds ---- */
static void bind_target(resolver *r, ast *t, bool top, block *b, sl_funcinfo *fi)
{
    switch (t->kind) {
    case E_IDENT:
        if (top)
            module_global(r->vm, r->mod, t->name, true);
        else if (blk_find(b, t->name) < 0)
            blk_add(r, b, t->name, new_local(r, fi, t->name));
        break;
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < t->n; i++)
            bind_target(r, t->list[i], top, b, fi);
        break;
    case E_PAREN: bind_target(r, t->a, top, b, fi); break;
    default: break;
    }
}

static void collect(resolver *r, ast **body, int n, bool top, block *b, sl_funcinfo *fi)
{
    for (int i = 0; i < n; i++) {
        ast *s = body[i];
        switch (s->kind) {
        case S_ASSIGN:
        case S_AUG: bind_target(r, s->a, top, b, fi); break;
        case S_FOR:
            bind_target(r, s->a, top, b, fi);
            collect(r, s->list, s->n, top, b, fi);
            break;
        case S_WHILE: collect(r, s->list, s->n, top, b, fi); break;
        case S_IF:
            collect(r, s->list, s->n, top, b, fi);
            collect(r, s->list2, s->n2, top, b, fi);
            break;
        case S_DEF: bind_target(r, s->a, top, b, fi); break;
        case S_LOAD:
            if (top)
                for (int j = 0; j < s->n; j++)
                    module_global(r->vm, r->mod, s->list[j]->name, true);
            break;
        default: break;
        }
    }
}

/* ---- pass 2: uses ---- */
static void expr(resolver *r, ast *e);
static void stmts(resolver *r, ast **body, int n);
static void function(resolver *r, sl_funcinfo *fi, ast *at);

static int add_free(resolver *r, sl_funcinfo *fi, bool outer_local, int index)
{
    for (int i = 0; i < fi->nfree; i++)
        if (fi->freevars[i].outer_local == outer_local && fi->freevars[i].index == index)
            return i;
    if (fi->nfree == fi->nfreecap) {
        int cap = fi->nfreecap ? fi->nfreecap * 2 : 4;
        sl_freevar *nf = vm_alloc(r->vm, (size_t)cap * sizeof *nf);
        if (fi->nfree)
            memcpy(nf, fi->freevars, (size_t)fi->nfree * sizeof *nf);
        fi->freevars = nf;
        fi->nfreecap = cap;
    }
    fi->freevars[fi->nfree] = (sl_freevar){outer_local, index};
    return fi->nfree++;
}

/* the local or free binding of name seen from function f: scope and index, or 0 */
static int lookup_local(resolver *r, fctx *f, const char *name, int *index)
{
    if (!f)
        return 0;
    for (block *b = f->blk; b; b = b->parent) {
        int i = blk_find(b, name);
        if (i >= 0) {
            *index = i;
            return SC_LOCAL;
        }
    }
    int pi;
    int sc = lookup_local(r, f->parent, name, &pi);
    if (!sc)
        return 0;
    if (sc == SC_LOCAL)
        f->parent->fi->cell[pi] = true;
    *index = add_free(r, f->fi, sc == SC_LOCAL, pi);
    return SC_FREE;
}

static void use(resolver *r, ast *id)
{
    int idx;
    int sc = lookup_local(r, r->f, id->name, &idx);
    if (sc) {
        id->scope = sc;
        id->index = idx;
        return;
    }
    idx = module_global(r->vm, r->mod, id->name, false);
    if (idx >= 0) {
        id->scope = SC_GLOBAL;
        id->index = idx;
        return;
    }
    for (int i = r->vm->npre; i-- > 0;)
        if (!strcmp(r->vm->pre[i].name, id->name)) {
            id->scope = SC_PREDECLARED;
            id->val = r->vm->pre[i].v;
            return;
        }
    sl_val u = universe_lookup(id->name);
    if (u) {
        id->scope = SC_PREDECLARED;
        id->val = u;
        return;
    }
    /* the names in sight, for a "did you mean": locals of every enclosing block, globals, predeclared, universe */
    int cap = r->mod->nglobals + r->vm->npre + 64, n = 0;
    for (fctx *f = r->f; f; f = f->parent)
        for (block *b = f->blk; b; b = b->parent)
            cap += b->n;
    const char **names = vm_alloc(r->vm, (size_t)cap * sizeof(char *));
    for (fctx *f = r->f; f; f = f->parent)
        for (block *b = f->blk; b; b = b->parent)
            for (int i = 0; i < b->n; i++)
                names[n++] = b->names[i];
    for (int i = 0; i < r->mod->nglobals; i++)
        names[n++] = r->mod->globnames[i];
    for (int i = 0; i < r->vm->npre; i++)
        names[n++] = r->vm->pre[i].name;
    n += universe_names(names + n, cap - n);
    const char *near = sl_nearest(id->name, names, n);
    if (near)
        vm_fail_at(r->vm, id->line, id->col, "undefined: %s (did you mean %s?)", id->name, near);
    vm_fail_at(r->vm, id->line, id->col, "undefined: %s", id->name);
}

static void target(resolver *r, ast *t, bool aug)
{
    switch (t->kind) {
    case E_IDENT: use(r, t); break;
    case E_TUPLE:
    case E_LIST:
        if (aug)
            vm_fail_at(r->vm, t->line, t->col, "cannot use augmented assignment with %s", t->kind == E_LIST ? "list" : "tuple");
        for (int i = 0; i < t->n; i++)
            target(r, t->list[i], false);
        break;
    case E_PAREN: target(r, t->a, aug); break;
    case E_INDEX:
        expr(r, t->a);
        expr(r, t->b);
        break;
    case E_DOT: expr(r, t->a); break;
    default: vm_fail_at(r->vm, t->line, t->col, "cannot assign to %s", t->kind == E_CONST ? "literal" : "this expression");
    }
}

static void comprehension(resolver *r, ast *e)
{
    ast *first = e->list[0];
    expr(r, first->b);
    block *b = vm_alloc(r->vm, sizeof *b);
    b->parent = r->f->blk;
    r->f->blk = b;
    for (int i = 0; i < e->n; i++)
        if (e->list[i]->kind == E_CLAUSE_FOR) {
            /* comprehension variables are fresh locals of the function, visible only here */
            ast *v = e->list[i]->a;
            ast *stack[64];
            int sp = 0;
            stack[sp++] = v;
            while (sp) {
                ast *t = stack[--sp];
                if (t->kind == E_IDENT) {
                    if (blk_find(b, t->name) < 0)
                        blk_add(r, b, t->name, new_local(r, r->f->fi, t->name));
                } else if (t->kind == E_TUPLE || t->kind == E_LIST) {
                    for (int j = 0; j < t->n && sp < 64; j++)
                        stack[sp++] = t->list[j];
                } else if (t->kind == E_PAREN && sp < 64)
                    stack[sp++] = t->a;
            }
        }
    for (int i = 0; i < e->n; i++) {
        ast *c = e->list[i];
        if (c->kind == E_CLAUSE_FOR) {
            target(r, c->a, false);
            if (i > 0)
                expr(r, c->b);
        } else
            expr(r, c->a);
    }
    if (e->kind == E_DICTCOMP) {
        expr(r, e->a->a);
        expr(r, e->a->b);
    } else
        expr(r, e->a);
    r->f->blk = b->parent;
}

static void expr(resolver *r, ast *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_IDENT: use(r, e); break;
    case E_CONST: break;
    case E_LIST:
    case E_TUPLE:
        for (int i = 0; i < e->n; i++)
            expr(r, e->list[i]);
        break;
    case E_DICT:
        for (int i = 0; i < e->n; i++) {
            expr(r, e->list[i]->a);
            expr(r, e->list[i]->b);
        }
        break;
    case E_LISTCOMP:
    case E_DICTCOMP: comprehension(r, e); break;
    case E_UNARY:
    case E_PAREN:
    case E_DOT: expr(r, e->a); break;
    case E_BINARY:
    case E_AND:
    case E_OR:
        expr(r, e->a);
        expr(r, e->b);
        break;
    case E_COND:
        expr(r, e->a);
        expr(r, e->b);
        expr(r, e->c);
        break;
    case E_CALL:
        expr(r, e->a);
        for (int i = 0; i < e->n; i++) {
            ast *a = e->list[i];
            if (a->kind == E_ARG_KW || a->kind == E_ARG_STAR || a->kind == E_ARG_STARSTAR)
                expr(r, a->a);
            else
                expr(r, a);
        }
        break;
    case E_INDEX:
        expr(r, e->a);
        expr(r, e->b);
        break;
    case E_SLICE:
        expr(r, e->a);
        expr(r, e->b);
        expr(r, e->c);
        expr(r, e->list2[0]);
        break;
    case E_LAMBDA: function(r, e->fi, e); break;
    default: break;
    }
}

static void stmts(resolver *r, ast **body, int n)
{
    for (int i = 0; i < n; i++) {
        ast *s = body[i];
        vm_steps(r->vm, 1);
        switch (s->kind) {
        case S_EXPR: expr(r, s->a); break;
        case S_ASSIGN:
            expr(r, s->b);
            target(r, s->a, false);
            break;
        case S_AUG:
            expr(r, s->b);
            target(r, s->a, true);
            break;
        case S_DEF:
            function(r, s->fi, s);
            target(r, s->a, false);
            break;
        case S_IF:
            expr(r, s->a);
            stmts(r, s->list, s->n);
            stmts(r, s->list2, s->n2);
            break;
        case S_FOR:
            expr(r, s->b);
            target(r, s->a, false);
            r->f->loops++;
            stmts(r, s->list, s->n);
            r->f->loops--;
            break;
        case S_WHILE:
            expr(r, s->a);
            r->f->loops++;
            stmts(r, s->list, s->n);
            r->f->loops--;
            break;
        case S_RETURN:
            if (r->f->toplevel)
                vm_fail_at(r->vm, s->line, s->col, "return statement not within a function");
            expr(r, s->a);
            break;
        case S_BREAK:
        case S_CONTINUE:
            if (!r->f->loops)
                vm_fail_at(r->vm, s->line, s->col, "%s not in a loop", s->kind == S_BREAK ? "break" : "continue");
            break;
        case S_LOAD:
            if (!r->f->toplevel)
                vm_fail_at(r->vm, s->line, s->col, "load statement within a function");
            for (int j = 0; j < s->n; j++) {
                if (s->list[j]->val && sl_str_data(s->list[j]->val, NULL)[0] == '_')
                    vm_fail_at(r->vm, s->list[j]->line, s->list[j]->col, "load: names with leading underscores are not exported: %s",
                               sl_str_data(s->list[j]->val, NULL));
                s->list[j]->index = module_global(r->vm, r->mod, s->list[j]->name, false);
            }
            break;
        default: break;
        }
    }
}

static void function(resolver *r, sl_funcinfo *fi, ast *at)
{
    /* defaults are evaluated where the function is defined */
    bool seen_star = false, seen_kwargs = false, seen_default = false;
    const char **pnames = vm_alloc(r->vm, (size_t)(fi->nparams + 1) * sizeof(char *));
    int np = 0;
    fi->varargs = fi->kwargs = -1;
    for (int i = 0; i < fi->nparams; i++) {
        ast *p = fi->params[i];
        const char *name = p->kind == E_IDENT ? p->name : p->a ? p->a->name : NULL;
        if (seen_kwargs)
            vm_fail_at(r->vm, p->line, p->col, "parameter may not follow **kwargs");
        if (p->kind == E_ARG_STAR) {
            if (seen_star)
                vm_fail_at(r->vm, p->line, p->col, "multiple * parameters not allowed");
            seen_star = true;
        } else if (p->kind == E_ARG_STARSTAR)
            seen_kwargs = true;
        else if (p->kind == E_ARG_KW) {
            expr(r, p->b);
            seen_default = true;
            fi->ndefaults++;
        } else if (seen_default && !seen_star)
            vm_fail_at(r->vm, p->line, p->col, "required parameter may not follow optional");
        if (name) {
            for (int j = 0; j < np; j++)
                if (!strcmp(pnames[j], name))
                    vm_fail_at(r->vm, p->line, p->col, "duplicate parameter: %s", name);
            pnames[np++] = name;
        }
        if (p->kind == E_ARG_STAR && !p->a && (i + 1 == fi->nparams || fi->params[i + 1]->kind == E_ARG_STARSTAR))
            vm_fail_at(r->vm, p->line, p->col, "bare * must be followed by keyword-only parameters");
    }
    fctx f = {0};
    f.parent = r->f; /* the module's own names are globals: only its comprehensions' variables are locals */
    f.fi = fi;
    f.blk = vm_alloc(r->vm, sizeof(block));
    /* locals: named parameters in order (positional, then keyword-only), *args, **kwargs, then the rest */
    fi->default_of = vm_alloc(r->vm, (size_t)(fi->nparams + 1) * sizeof(int));
    int d = 0;
    bool after_star = false;
    for (int i = 0; i < fi->nparams; i++) {
        ast *p = fi->params[i];
        if (p->kind == E_ARG_STAR) {
            after_star = true;
            continue;
        }
        if (p->kind == E_ARG_STARSTAR)
            continue;
        const char *name = p->kind == E_IDENT ? p->name : p->a->name;
        int li = new_local(r, fi, name);
        blk_add(r, f.blk, name, li);
        fi->default_of[li] = p->kind == E_ARG_KW ? d++ : -1;
        if (after_star)
            fi->nkwonly++;
        else
            fi->npos++;
    }
    for (int i = 0; i < fi->nparams; i++) {
        ast *p = fi->params[i];
        if (p->kind == E_ARG_STAR && p->a) {
            fi->varargs = new_local(r, fi, p->a->name);
            blk_add(r, f.blk, p->a->name, fi->varargs);
        }
    }
    for (int i = 0; i < fi->nparams; i++) {
        ast *p = fi->params[i];
        if (p->kind == E_ARG_STARSTAR) {
            fi->kwargs = new_local(r, fi, p->a->name);
            blk_add(r, f.blk, p->a->name, fi->kwargs);
        }
    }
    collect(r, fi->body, fi->nbody, false, f.blk, fi);
    fctx *saved = r->f;
    r->f = &f;
    stmts(r, fi->body, fi->nbody);
    r->f = saved;
    (void)at;
}

sl_module *resolve_file(sl_vm *vm, ast *file)
{
    resolver R = {0};
    R.vm = vm;
    R.mod = vm_alloc(vm, sizeof *R.mod);
    sl_funcinfo *top = vm_alloc(vm, sizeof *top);
    top->name = "<toplevel>";
    top->varargs = top->kwargs = -1;
    top->body = file->list;
    top->nbody = file->n;
    R.mod->top = top;
    collect(&R, file->list, file->n, true, NULL, top);
    fctx f = {0};
    f.fi = top;
    f.toplevel = true;
    R.f = &f;
    stmts(&R, file->list, file->n);
    R.mod->globals = vm_alloc(vm, (size_t)(R.mod->nglobals + 1) * sizeof(sl_val));
    return R.mod;
}
