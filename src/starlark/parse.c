/* The parser: tokens to a syntax tree, by recursive descent over the spec's grammar, with go.starlark.net's error
 * wording ("got X, want Y"). Its recursion and the tree's height are bounded (MAX_HEIGHT), so a script of ten
 * thousand nested brackets, unary minuses or `a+a+...+a` terms is a clean error, not a stack overflow here or in
 * the evaluator, which recurses as deep as the tree is high. */
#include <stdio.h>

#include "starlark/internal.h"

enum { MAX_HEIGHT = 400 };

token *lex_file(sl_vm *vm, const char *src, size_t len, size_t *ntok);

typedef struct {
    sl_vm *vm;
    token *t;
    size_t n, i;
    int depth;
} parser;

static token *tok(parser *p) { return &p->t[p->i]; }
static int kind(parser *p) { return p->t[p->i].kind; }
static token *next(parser *p)
{
    token *t = &p->t[p->i];
    if (p->i + 1 < p->n)
        p->i++;
    return t;
}

static const char *describe(parser *p, token *t)
{
    static char buf[64];
    switch (t->kind) {
    case T_EOF: return "end of file";
    case T_NEWLINE: return "newline";
    case T_INDENT: return "indent";
    case T_OUTDENT: return "outdent";
    case T_IDENT: return "identifier";
    case T_INT: return "int literal";
    case T_FLOAT: return "float literal";
    case T_STRING: return "string literal";
    case T_BYTES: return "bytes literal";
    default:
        if (t->kind >= T_AND && t->kind <= T_WHILE) {
            snprintf(buf, sizeof buf, "%.*s", (int)t->len, t->s);
            return buf;
        }
        snprintf(buf, sizeof buf, "'%.*s'", (int)t->len, t->s);
        (void)p;
        return buf;
    }
}

_Noreturn static void want(parser *p, const char *what)
{
    token *t = tok(p);
    /* go.starlark.net places the error where its scanner stands, after the token: for a line break that is the
     * start of the next line (syntax-errors.star) */
    if (t->kind == T_NEWLINE && t->len == 1) /* a real line break, not the end of the text */
        vm_fail_at(p->vm, t->line + 1, 1, "got %s, want %s", describe(p, t), what);
    vm_fail_at(p->vm, t->line, t->col, "got %s, want %s", describe(p, t), what);
}

static token *expect(parser *p, int k, const char *what)
{
    if (kind(p) != k)
        want(p, what);
    return next(p);
}

static ast *mk(parser *p, int k, token *at)
{
    ast *n = vm_alloc(p->vm, sizeof *n);
    n->kind = (uint16_t)k;
    n->line = at->line;
    n->col = at->col;
    n->height = 1;
    return n;
}

static void grow(parser *p, ast *n, ast *child)
{
    if (child && child->height + 1 > n->height) {
        n->height = child->height + 1;
        if (n->height > MAX_HEIGHT)
            vm_fail_at(p->vm, n->line, n->col, "expression nested more than %d levels deep", MAX_HEIGHT);
    }
}

static void push(parser *p, ast ***list, int *n, ast *x)
{
    /* grows by doubling; the capacity is the next power of two at or above n */
    if ((*n & (*n - 1)) == 0) {
        int cap = *n ? *n * 2 : 1;
        ast **nl = vm_alloc_raw(p->vm, (size_t)cap * sizeof(ast *));
        if (*n)
            memcpy(nl, *list, (size_t)*n * sizeof(ast *));
        *list = nl;
    }
    (*list)[(*n)++] = x;
}

static void enter(parser *p)
{
    if (++p->depth > MAX_HEIGHT) {
        token *t = tok(p);
        vm_fail_at(p->vm, t->line, t->col, "expression nested more than %d levels deep", MAX_HEIGHT);
    }
}

static ast *parse_test(parser *p);
static ast *parse_expr(parser *p, bool in_parens);
static ast *parse_test_prec(parser *p, int prec);
static void parse_suite(parser *p, ast ***body, int *n);

static ast *ident(parser *p)
{
    token *t = expect(p, T_IDENT, "identifier");
    ast *n = mk(p, E_IDENT, t);
    n->name = vm_strdup(p->vm, t->s, t->len);
    return n;
}

static bool terminates(int k)
{
    switch (k) {
    case T_EOF: case T_NEWLINE: case T_EQ: case T_RBRACE: case T_RBRACK: case T_RPAREN: case T_SEMI:
    case T_PLUS_EQ: case T_MINUS_EQ: case T_STAR_EQ: case T_SLASH_EQ: case T_SLASHSLASH_EQ: case T_PERCENT_EQ:
    case T_AMP_EQ: case T_PIPE_EQ: case T_CIRCUMFLEX_EQ: case T_LTLT_EQ: case T_GTGT_EQ:
        return true;
    default: return false;
    }
}

/* parameters of def and lambda, up to (not including) the closing token */
static sl_funcinfo *parse_params(parser *p, int close)
{
    sl_funcinfo *fi = vm_alloc(p->vm, sizeof *fi);
    while (kind(p) != close) {
        token *t = tok(p);
        ast *param;
        if (kind(p) == T_STAR) {
            next(p);
            param = mk(p, E_ARG_STAR, t);
            if (kind(p) == T_IDENT)
                param->a = ident(p);
        } else if (kind(p) == T_STARSTAR) {
            next(p);
            param = mk(p, E_ARG_STARSTAR, t);
            param->a = ident(p);
        } else {
            if (kind(p) != T_IDENT)
                vm_fail_at(p->vm, t->line, t->col, kind(p) == T_LOAD || (kind(p) >= T_AND && kind(p) <= T_WHILE)
                                                        ? "not an identifier"
                                                        : "got %s, want parameter", describe(p, t));
            param = ident(p);
            if (kind(p) == T_EQ) {
                next(p);
                ast *d = mk(p, E_ARG_KW, t);
                d->a = param;
                d->b = parse_test(p);
                param = d;
            }
        }
        push(p, &fi->params, &fi->nparams, param);
        if (kind(p) != T_COMMA) {
            /* go.starlark.net wants the comma between parameters first (syntax-errors.star: "got '-', want ','") */
            if (kind(p) != close && kind(p) != T_RPAREN && kind(p) != T_COLON && kind(p) != T_EOF)
                want(p, "','");
            break;
        }
        next(p);
    }
    return fi;
}

static ast *parse_lambda(parser *p, bool allow_cond)
{
    token *t = expect(p, T_LAMBDA, "lambda");
    enter(p);
    ast *n = mk(p, E_LAMBDA, t);
    n->fi = parse_params(p, T_COLON);
    expect(p, T_COLON, "':'");
    ast *body = allow_cond ? parse_test(p) : parse_test_prec(p, 0);
    ast *ret = mk(p, S_RETURN, t);
    ret->a = body;
    n->fi->name = "lambda";
    n->fi->line = t->line;
    n->fi->col = t->col;
    n->fi->is_lambda = true;
    push(p, &n->fi->body, &n->fi->nbody, ret);
    grow(p, n, body);
    p->depth--;
    return n;
}

static ast *parse_test(parser *p)
{
    if (kind(p) == T_LAMBDA)
        return parse_lambda(p, true);
    enter(p);
    ast *x = parse_test_prec(p, 0);
    if (kind(p) == T_IF) {
        token *t = next(p);
        ast *c = mk(p, E_COND, t);
        c->b = parse_test_prec(p, 0);
        if (kind(p) != T_ELSE)
            vm_fail_at(p->vm, tok(p)->line, tok(p)->col, "conditional expression without else clause");
        next(p);
        c->a = x;
        c->c = parse_test(p);
        grow(p, c, c->a);
        grow(p, c, c->b);
        grow(p, c, c->c);
        x = c;
    }
    p->depth--;
    return x;
}

static ast *parse_test_nocond(parser *p)
{
    if (kind(p) == T_LAMBDA)
        return parse_lambda(p, false);
    return parse_test_prec(p, 0);
}

/* comprehension clauses after the body, up to the closing token */
/* The variables of a for loop or a comprehension's for clause, through "in": one target, or several (a trailing
 * comma allowed) as a tuple. */
static ast *parse_loop_vars(parser *p, token *t)
{
    ast *vars = parse_test_prec(p, 99);
    if (kind(p) == T_COMMA) {
        ast *tup = mk(p, E_TUPLE, t);
        push(p, &tup->list, &tup->n, vars);
        while (kind(p) == T_COMMA) {
            next(p);
            if (kind(p) == T_IN)
                break;
            push(p, &tup->list, &tup->n, parse_test_prec(p, 99));
        }
        vars = tup;
    }
    expect(p, T_IN, "in");
    return vars;
}

static ast *parse_comp(parser *p, int k, token *at, ast *body, int close, const char *closing)
{
    ast *n = mk(p, k, at);
    n->a = body;
    grow(p, n, body);
    while (kind(p) == T_FOR || kind(p) == T_IF) {
        token *t = next(p);
        ast *c;
        if (t->kind == T_FOR) {
            c = mk(p, E_CLAUSE_FOR, t);
            c->a = parse_loop_vars(p, t);
            c->b = parse_test_prec(p, 0);
        } else {
            c = mk(p, E_CLAUSE_IF, t);
            c->a = parse_test_nocond(p);
        }
        grow(p, n, c->a);
        grow(p, n, c->b);
        push(p, &n->list, &n->n, c);
    }
    if (kind(p) != close) {
        char w[64];
        snprintf(w, sizeof w, "%s, for, or if", closing);
        want(p, w);
    }
    return n;
}

static ast *parse_args(parser *p, ast *call)
{
    bool seen_kw = false, seen_kwargs = false;
    while (kind(p) != T_RPAREN) {
        token *t = tok(p);
        ast *arg;
        if (kind(p) == T_STAR) {
            next(p);
            arg = mk(p, E_ARG_STAR, t);
            arg->a = parse_test(p);
            if (seen_kwargs)
                vm_fail_at(p->vm, t->line, t->col, "*args may not follow **kwargs");
        } else if (kind(p) == T_STARSTAR) {
            next(p);
            arg = mk(p, E_ARG_STARSTAR, t);
            arg->a = parse_test(p);
            seen_kwargs = true;
        } else {
            ast *x = parse_test(p);
            if (kind(p) == T_EQ) {
                if (x->kind != E_IDENT)
                    vm_fail_at(p->vm, t->line, t->col, "keyword argument must have form name=expr");
                next(p);
                arg = mk(p, E_ARG_KW, t);
                arg->name = x->name;
                arg->a = parse_test(p);
                seen_kw = true;
                if (seen_kwargs)
                    vm_fail_at(p->vm, t->line, t->col, "keyword argument may not follow **kwargs");
            } else {
                arg = x;
                if (seen_kw || seen_kwargs)
                    vm_fail_at(p->vm, t->line, t->col, "positional argument may not follow named");
            }
        }
        grow(p, call, arg->a ? arg->a : arg);
        push(p, &call->list, &call->n, arg);
        if (kind(p) != T_COMMA)
            break;
        next(p);
    }
    expect(p, T_RPAREN, "')'");
    return call;
}

static ast *parse_operand(parser *p)
{
    token *t = tok(p);
    switch (t->kind) {
    case T_IDENT: return ident(p);
    case T_INT: case T_FLOAT: case T_STRING: case T_BYTES: {
        next(p);
        ast *n = mk(p, E_CONST, t);
        n->val = t->val;
        return n;
    }
    case T_LPAREN: {
        next(p);
        enter(p);
        ast *n;
        if (kind(p) == T_RPAREN) {
            n = mk(p, E_TUPLE, t);
        } else {
            ast *x = parse_expr(p, true);
            n = mk(p, E_PAREN, t);
            n->a = x;
            grow(p, n, x);
        }
        expect(p, T_RPAREN, "')'");
        p->depth--;
        return n;
    }
    case T_LBRACK: {
        next(p);
        enter(p);
        ast *n = mk(p, E_LIST, t);
        if (kind(p) != T_RBRACK) {
            ast *x = parse_test(p);
            if (kind(p) == T_FOR) {
                n = parse_comp(p, E_LISTCOMP, t, x, T_RBRACK, "']'");
            } else {
                push(p, &n->list, &n->n, x);
                grow(p, n, x);
                while (kind(p) == T_COMMA) {
                    next(p);
                    if (kind(p) == T_RBRACK)
                        break;
                    x = parse_test(p);
                    grow(p, n, x);
                    push(p, &n->list, &n->n, x);
                }
            }
        }
        if (kind(p) != T_RBRACK)
            want(p, n->kind == E_LIST && n->n == 1 ? "']', for, or if" : "']'");
        next(p);
        p->depth--;
        return n;
    }
    case T_LBRACE: {
        next(p);
        enter(p);
        ast *n = mk(p, E_DICT, t);
        if (kind(p) != T_RBRACE) {
            token *et = tok(p);
            ast *e = mk(p, E_ENTRY, et);
            e->a = parse_test(p);
            expect(p, T_COLON, "':'");
            e->b = parse_test(p);
            grow(p, e, e->a);
            grow(p, e, e->b);
            if (kind(p) == T_FOR) {
                n = parse_comp(p, E_DICTCOMP, t, e, T_RBRACE, "'}'");
            } else {
                push(p, &n->list, &n->n, e);
                grow(p, n, e);
                while (kind(p) == T_COMMA) {
                    next(p);
                    if (kind(p) == T_RBRACE)
                        break;
                    et = tok(p);
                    e = mk(p, E_ENTRY, et);
                    e->a = parse_test(p);
                    expect(p, T_COLON, "':'");
                    e->b = parse_test(p);
                    grow(p, e, e->a);
                    grow(p, e, e->b);
                    grow(p, n, e);
                    push(p, &n->list, &n->n, e);
                }
            }
        }
        expect(p, T_RBRACE, "'}'");
        p->depth--;
        return n;
    }
    default: want(p, "primary expression");
    }
}

static ast *parse_primary(parser *p)
{
    ast *x = parse_operand(p);
    for (;;) {
        token *t = tok(p);
        if (t->kind == T_DOT) {
            next(p);
            ast *n = mk(p, E_DOT, t);
            n->a = x;
            token *id = expect(p, T_IDENT, "identifier");
            n->name = vm_strdup(p->vm, id->s, id->len);
            grow(p, n, x);
            x = n;
        } else if (t->kind == T_LPAREN) {
            next(p);
            enter(p);
            ast *n = mk(p, E_CALL, t);
            n->a = x;
            grow(p, n, x);
            x = parse_args(p, n);
            p->depth--;
        } else if (t->kind == T_LBRACK) {
            next(p);
            enter(p);
            ast *lo = NULL, *hi = NULL, *st = NULL;
            bool slice = false;
            if (kind(p) != T_COLON)
                lo = parse_expr(p, false);
            if (kind(p) == T_COLON) {
                slice = true;
                next(p);
                if (kind(p) != T_COLON && kind(p) != T_RBRACK)
                    hi = parse_test(p);
                if (kind(p) == T_COLON) {
                    next(p);
                    if (kind(p) != T_RBRACK)
                        st = parse_test(p);
                }
            }
            expect(p, T_RBRACK, "']'");
            ast *n = mk(p, slice ? E_SLICE : E_INDEX, t);
            n->a = x;
            n->b = lo;
            n->c = hi;
            if (slice) {
                n->list2 = vm_alloc(p->vm, sizeof(ast *));
                n->list2[0] = st;
                n->n2 = 1;
                grow(p, n, st);
            }
            grow(p, n, x);
            grow(p, n, lo);
            grow(p, n, hi);
            x = n;
            p->depth--;
        } else
            return x;
    }
}

/* levels, as go.starlark.net numbers them: 0 or, 1 and, 2 not, 3 comparisons, 4 |, 5 ^, 6 &, 7 shifts, 8 + -,
 * 9 * / // %, 10 and above: a primary with its unary operators */
enum { LEVEL_NOT = 2, LEVEL_CMP = 3, LEVEL_PRIMARY = 10 };

static int prec_of(int k)
{
    switch (k) {
    case T_OR: return 0;
    case T_AND: return 1;
    case T_EQL: case T_NEQ: case T_LT: case T_GT: case T_LE: case T_GE: case T_IN: case T_NOT_IN: return 3;
    case T_PIPE: return 4;
    case T_CIRCUMFLEX: return 5;
    case T_AMP: return 6;
    case T_LTLT: case T_GTGT: return 7;
    case T_PLUS: case T_MINUS: return 8;
    case T_STAR: case T_SLASH: case T_SLASHSLASH: case T_PERCENT: return 9;
    default: return -1;
    }
}

static const char *op_name(int k)
{
    switch (k) {
    case T_EQL: return "==";
    case T_NEQ: return "!=";
    case T_LT: return "<";
    case T_GT: return ">";
    case T_LE: return "<=";
    case T_GE: return ">=";
    case T_IN: return "in";
    default: return "not in";
    }
}

/* a primary with its unary operators: -x.y is -(x.y) */
static ast *parse_unary(parser *p)
{
    token *t = tok(p);
    if (t->kind == T_MINUS || t->kind == T_PLUS || t->kind == T_TILDE) {
        next(p);
        enter(p);
        ast *n = mk(p, E_UNARY, t);
        n->op = (uint16_t)t->kind;
        n->a = parse_unary(p);
        grow(p, n, n->a);
        p->depth--;
        return n;
    }
    return parse_primary(p);
}

static ast *parse_test_prec(parser *p, int prec)
{
    if (prec == 99)
        return parse_primary(p); /* loop variables */
    if (prec >= LEVEL_PRIMARY)
        return parse_unary(p);
    if (kind(p) == T_NOT && prec == LEVEL_NOT) {
        token *t = next(p);
        enter(p);
        ast *n = mk(p, E_UNARY, t);
        n->op = T_NOT;
        n->a = parse_test_prec(p, prec);
        grow(p, n, n->a);
        p->depth--;
        return n;
    }
    enter(p);
    ast *x = parse_test_prec(p, prec + 1);
    int lastcmp = 0;
    for (;;) {
        int k = kind(p);
        token *t = tok(p);
        if (k == T_NOT) {
            /* here NOT must be followed by IN */
            if (p->i + 1 < p->n && p->t[p->i + 1].kind == T_IN)
                k = T_NOT_IN;
            else {
                next(p);
                want(p, "in");
            }
        }
        int pr = prec_of(k);
        if (pr < prec) {
            p->depth--;
            return x;
        }
        if (pr == LEVEL_CMP && lastcmp)
            vm_fail_at(p->vm, t->line, t->col, "%s does not associate with %s (use parens)", op_name(lastcmp), op_name(k));
        next(p);
        if (k == T_NOT_IN)
            next(p);
        ast *n = mk(p, k == T_AND ? E_AND : k == T_OR ? E_OR : E_BINARY, t);
        n->op = (uint16_t)k;
        n->a = x;
        n->b = parse_test_prec(p, pr + 1);
        grow(p, n, n->a);
        grow(p, n, n->b);
        x = n;
        if (pr == LEVEL_CMP)
            lastcmp = k;
    }
}

static ast *parse_expr(parser *p, bool in_parens)
{
    ast *x = parse_test(p);
    if (kind(p) != T_COMMA)
        return x;
    ast *tup = mk(p, E_TUPLE, tok(p));
    tup->line = x->line;
    tup->col = x->col;
    push(p, &tup->list, &tup->n, x);
    grow(p, tup, x);
    while (kind(p) == T_COMMA) {
        token *c = next(p);
        if (terminates(kind(p)) || (in_parens && kind(p) == T_RPAREN)) {
            if (!in_parens)
                vm_fail_at(p->vm, c->line, c->col, "unparenthesized tuple with trailing comma");
            break;
        }
        ast *y = parse_test(p);
        grow(p, tup, y);
        push(p, &tup->list, &tup->n, y);
    }
    return tup;
}

static ast *parse_small(parser *p)
{
    token *t = tok(p);
    switch (t->kind) {
    case T_PASS: next(p); return mk(p, S_PASS, t);
    case T_BREAK: next(p); return mk(p, S_BREAK, t);
    case T_CONTINUE: next(p); return mk(p, S_CONTINUE, t);
    case T_RETURN: {
        next(p);
        ast *n = mk(p, S_RETURN, t);
        if (kind(p) != T_NEWLINE && kind(p) != T_SEMI && kind(p) != T_EOF)
            n->a = parse_expr(p, false);
        return n;
    }
    case T_LOAD: {
        next(p);
        ast *n = mk(p, S_LOAD, t);
        expect(p, T_LPAREN, "'('");
        if (kind(p) != T_STRING)
            vm_fail_at(p->vm, tok(p)->line, tok(p)->col, "first operand of load statement must be a string literal");
        n->val = next(p)->val;
        while (kind(p) == T_COMMA) {
            next(p);
            if (kind(p) == T_RPAREN)
                break;
            token *a = tok(p);
            ast *b = mk(p, E_ARG_KW, a);
            if (a->kind == T_STRING) {
                next(p);
                size_t len;
                const char *s = sl_str_data(a->val, &len);
                b->name = vm_strdup(p->vm, s, len);
                b->val = a->val;
            } else if (a->kind == T_IDENT) {
                ast *id = ident(p);
                if (kind(p) != T_EQ)
                    vm_fail_at(p->vm, a->line, a->col, "load operand must be \"%s\" or %s=\"originalname\"", id->name,
                               id->name);
                next(p);
                if (kind(p) != T_STRING)
                    vm_fail_at(p->vm, a->line, a->col,
                               "original name of loaded symbol must be quoted: %s=\"originalname\"", id->name);
                b->name = id->name;
                b->val = next(p)->val;
            } else
                vm_fail_at(p->vm, a->line, a->col, "load operand must be \"name\" or localname=\"name\" (got %s)",
                           describe(p, a));
            push(p, &n->list, &n->n, b);
        }
        expect(p, T_RPAREN, "')'");
        if (n->n == 0)
            vm_fail_at(p->vm, t->line, t->col, "load statement must import at least 1 symbol");
        return n;
    }
    default: break;
    }
    ast *x = parse_expr(p, false);
    int k = kind(p);
    if (k == T_EQ) {
        token *et = next(p);
        ast *n = mk(p, S_ASSIGN, et);
        n->a = x;
        n->b = parse_expr(p, false);
        return n;
    }
    if (k >= T_PLUS_EQ && k <= T_GTGT_EQ) {
        token *et = next(p);
        ast *n = mk(p, S_AUG, et);
        static const int base[] = {T_PLUS, T_MINUS, T_STAR, T_SLASH, T_SLASHSLASH, T_PERCENT, T_AMP, T_PIPE,
                                   T_CIRCUMFLEX, T_LTLT, T_GTGT};
        n->op = (uint16_t)base[k - T_PLUS_EQ];
        n->a = x;
        n->b = parse_expr(p, false);
        return n;
    }
    ast *n = mk(p, S_EXPR, t);
    n->a = x;
    return n;
}

static void parse_simple(parser *p, ast ***body, int *n)
{
    for (;;) {
        push(p, body, n, parse_small(p));
        if (kind(p) != T_SEMI)
            break;
        next(p);
        if (kind(p) == T_NEWLINE || kind(p) == T_EOF)
            break;
    }
    if (kind(p) == T_EOF)
        return;
    expect(p, T_NEWLINE, "newline");
}

static void parse_stmt(parser *p, ast ***body, int *n);

static ast *parse_if(parser *p)
{
    token *t = next(p); /* if or elif */
    ast *n = mk(p, S_IF, t);
    n->a = parse_test(p);
    expect(p, T_COLON, "':'");
    parse_suite(p, &n->list, &n->n);
    if (kind(p) == T_ELIF) {
        push(p, &n->list2, &n->n2, parse_if(p));
    } else if (kind(p) == T_ELSE) {
        next(p);
        expect(p, T_COLON, "':'");
        parse_suite(p, &n->list2, &n->n2);
    }
    return n;
}

static void parse_stmt(parser *p, ast ***body, int *n)
{
    token *t = tok(p);
    if (++p->depth > 100)
        vm_fail_at(p->vm, t->line, t->col, "statements nested more than 100 levels deep");
    switch (t->kind) {
    case T_DEF: {
        next(p);
        ast *d = mk(p, S_DEF, t);
        if (kind(p) != T_IDENT)
            vm_fail_at(p->vm, tok(p)->line, tok(p)->col, "not an identifier");
        d->a = ident(p);
        expect(p, T_LPAREN, "'('");
        d->fi = parse_params(p, T_RPAREN);
        expect(p, T_RPAREN, "')'");
        expect(p, T_COLON, "':'");
        d->fi->name = d->a->name;
        d->fi->line = t->line;
        d->fi->col = t->col;
        parse_suite(p, &d->fi->body, &d->fi->nbody);
        push(p, body, n, d);
        break;
    }
    case T_IF: push(p, body, n, parse_if(p)); break;
    case T_FOR: {
        next(p);
        ast *f = mk(p, S_FOR, t);
        f->a = parse_loop_vars(p, t);
        f->b = parse_expr(p, false);
        expect(p, T_COLON, "':'");
        parse_suite(p, &f->list, &f->n);
        push(p, body, n, f);
        break;
    }
    case T_WHILE: {
        next(p);
        ast *w = mk(p, S_WHILE, t);
        w->a = parse_test(p);
        expect(p, T_COLON, "':'");
        parse_suite(p, &w->list, &w->n);
        push(p, body, n, w);
        break;
    }
    default: parse_simple(p, body, n);
    }
    p->depth--;
}

static void parse_suite(parser *p, ast ***body, int *n)
{
    if (kind(p) == T_NEWLINE) {
        next(p);
        expect(p, T_INDENT, "indent");
        while (kind(p) != T_OUTDENT && kind(p) != T_EOF)
            parse_stmt(p, body, n);
        expect(p, T_OUTDENT, "outdent");
        return;
    }
    parse_simple(p, body, n);
}

ast *parse_file(sl_vm *vm, const char *src, size_t len)
{
    parser P = {0};
    P.vm = vm;
    P.t = lex_file(vm, src, len, &P.n);
    ast *file = vm_alloc(vm, sizeof *file);
    file->kind = S_PASS;
    file->line = 1;
    while (kind(&P) != T_EOF) {
        if (kind(&P) == T_NEWLINE) {
            next(&P);
            continue;
        }
        if (kind(&P) == T_INDENT || kind(&P) == T_OUTDENT)
            vm_fail_at(vm, tok(&P)->line, tok(&P)->col, kind(&P) == T_INDENT ? "unexpected indent" : "unexpected outdent");
        parse_stmt(&P, &file->list, &file->n);
    }
    return file;
}
