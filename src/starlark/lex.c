/* The scanner: source text to tokens, with Python's indentation rules (INDENT/OUTDENT, newlines ignored inside
 * brackets, backslash continuation), string and bytes literals with their escapes, and int and float literals
 * (ints of any size, checked against the VM's size limit). The whole file is scanned up front into an array the
 * parser reads with lookahead; every error names its line and column. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "starlark/internal.h"

struct lexer {
    sl_vm *vm;
    const char *src, *p, *end;
    int line;
    const char *linestart;
    int depth;           /* open brackets */
    int indents[256];
    int nindent;
    token *toks;
    size_t n, cap;
};

static const struct { const char *w; int t; } keywords[] = {
    {"and", T_AND}, {"break", T_BREAK}, {"continue", T_CONTINUE}, {"def", T_DEF}, {"elif", T_ELIF},
    {"else", T_ELSE}, {"for", T_FOR}, {"if", T_IF}, {"in", T_IN}, {"lambda", T_LAMBDA}, {"load", T_LOAD},
    {"not", T_NOT}, {"or", T_OR}, {"pass", T_PASS}, {"return", T_RETURN}, {"while", T_WHILE},
};

static int col(lexer *lx, const char *p) { return (int)(p - lx->linestart) + 1; }

static void emit(lexer *lx, int kind, const char *s, size_t len, int line, int c, sl_val val)
{
    if (lx->n == lx->cap) {
        size_t cap = lx->cap ? lx->cap * 2 : 256;
        token *t = vm_alloc_raw(lx->vm, cap * sizeof *t);
        if (lx->n)
            memcpy(t, lx->toks, lx->n * sizeof *t);
        lx->toks = t;
        lx->cap = cap;
    }
    vm_steps(lx->vm, 1);
    lx->toks[lx->n++] = (token){kind, line, c, s, len, val};
}

static void hex_escape(lexer *lx, sbuf *b, const char **pp, int ndig, bool bytes, int line, int c0)
{
    const char *p = *pp;
    uint32_t v = 0;
    for (int i = 0; i < ndig; i++) {
        if (p + i >= lx->end) /* before the byte is read: an escape cut by the end of the text (make test's fuzz) */
            vm_fail_at(lx->vm, line, c0, "invalid escape sequence \\%c", p[-1]);
        char ch = p[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            vm_fail_at(lx->vm, line, c0, "invalid escape sequence \\%c", p[-1]);
        v = v * 16 + (uint32_t)d;
    }
    *pp = p + ndig;
    if (ndig == 2) {
        if (!bytes && v >= 0x80)
            vm_fail_at(lx->vm, line, c0, "non-ASCII hex escape \\x%02x (use \\u%04X for the UTF-8 encoding of U+%04X)", v, v, v);
        sb_addc(b, (char)v);
        return;
    }
    if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
        vm_fail_at(lx->vm, line, c0, "invalid Unicode code point U+%04X", v);
    char u[4];
    sb_add(b, u, (size_t)utf8_encode(v, u));
}

static void scan_string(lexer *lx, bool raw, bool bytes, int line, int c0, const char *start)
{
    char q = *lx->p;
    bool triple = lx->p + 2 < lx->end && lx->p[1] == q && lx->p[2] == q;
    lx->p += triple ? 3 : 1;
    sbuf b;
    sb_init(&b, lx->vm);
    for (;;) {
        if (lx->p >= lx->end)
            vm_fail_at(lx->vm, line, c0, "unexpected EOF in string");
        char ch = *lx->p;
        if (ch == q) {
            if (!triple) {
                lx->p++;
                break;
            }
            if (lx->p + 2 < lx->end && lx->p[1] == q && lx->p[2] == q) {
                lx->p += 3;
                break;
            }
            sb_addc(&b, ch);
            lx->p++;
            continue;
        }
        if (ch == '\n') {
            if (!triple)
                vm_fail_at(lx->vm, line, c0, "unexpected newline in string");
            sb_addc(&b, ch);
            lx->p++;
            lx->line++;
            lx->linestart = lx->p;
            continue;
        }
        if (ch == '\r') {
            lx->p++;
            continue;
        }
        if (ch != '\\') {
            sb_addc(&b, ch);
            lx->p++;
            continue;
        }
        /* a backslash */
        if (lx->p + 1 >= lx->end)
            vm_fail_at(lx->vm, line, c0, "unexpected EOF in string");
        char e = lx->p[1];
        if (raw) {
            if (e == '\n') { /* a raw string keeps the backslash and the newline */
                sb_add(&b, "\\\n", 2);
                lx->p += 2;
                lx->line++;
                lx->linestart = lx->p;
                continue;
            }
            sb_addc(&b, '\\');
            if (e == q || e == '\\') {
                sb_addc(&b, e);
                lx->p += 2;
            } else
                lx->p++;
            continue;
        }
        lx->p += 2;
        switch (e) {
        case '\n':
            lx->line++;
            lx->linestart = lx->p;
            break;
        case 'a': sb_addc(&b, '\a'); break;
        case 'b': sb_addc(&b, '\b'); break;
        case 'f': sb_addc(&b, '\f'); break;
        case 'n': sb_addc(&b, '\n'); break;
        case 'r': sb_addc(&b, '\r'); break;
        case 't': sb_addc(&b, '\t'); break;
        case 'v': sb_addc(&b, '\v'); break;
        case '\\': sb_addc(&b, '\\'); break;
        case '\'': sb_addc(&b, '\''); break;
        case '"': sb_addc(&b, '"'); break;
        case 'x': hex_escape(lx, &b, &lx->p, 2, bytes, line, c0); break;
        case 'u': hex_escape(lx, &b, &lx->p, 4, bytes, line, c0); break;
        case 'U': hex_escape(lx, &b, &lx->p, 8, bytes, line, c0); break;
        default:
            if (e >= '0' && e <= '7') {
                uint32_t v = (uint32_t)(e - '0');
                for (int i = 0; i < 2 && lx->p < lx->end && *lx->p >= '0' && *lx->p <= '7'; i++)
                    v = v * 8 + (uint32_t)(*lx->p++ - '0');
                if (v > 255)
                    vm_fail_at(lx->vm, line, c0, "invalid escape sequence \\%03o", v);
                if (!bytes && v >= 0x80)
                    vm_fail_at(lx->vm, line, c0, "non-ASCII octal escape \\%o (use \\u%04X for the UTF-8 encoding of U+%04X)", v, v, v);
                sb_addc(&b, (char)v);
                break;
            }
            vm_fail_at(lx->vm, line, c0, "invalid escape sequence \\%c", e);
        }
    }
    sl_val v = mk_str(lx->vm, b.s ? b.s : "", b.len, bytes);
    emit(lx, bytes ? T_BYTES : T_STRING, start, (size_t)(lx->p - start), line, c0, v);
}

static bool is_ident_start(unsigned char c) { return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z') || c >= 0x80; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static void scan_number(lexer *lx, int line, int c0)
{
    const char *s = lx->p;
    const char *p = s;
    bool is_float = false;
    if (*p == '0' && p + 1 < lx->end && strchr("xXoObB", p[1]) && p[1]) {
        int base = (p[1] | 32) == 'x' ? 16 : (p[1] | 32) == 'o' ? 8 : 2;
        p += 2;
        const char *ds = p;
        while (p < lx->end && (is_digit(*p) || ((*p | 32) >= 'a' && (*p | 32) <= 'z') || *p == '_'))
            p++;
        lx->p = p;
        bool ok;
        sl_val v = int_parse(lx->vm, ds, (size_t)(p - ds), base, &ok);
        if (!ok)
            vm_fail_at(lx->vm, line, c0, "invalid int literal: %.*s", (int)(p - s), s);
        emit(lx, T_INT, s, (size_t)(p - s), line, c0, v);
        return;
    }
    while (p < lx->end && is_digit(*p))
        p++;
    if (p < lx->end && *p == '.') {
        is_float = true;
        p++;
        while (p < lx->end && is_digit(*p))
            p++;
    }
    if (p < lx->end && (*p | 32) == 'e') {
        const char *q = p + 1;
        if (q < lx->end && (*q == '+' || *q == '-'))
            q++;
        if (q < lx->end && is_digit(*q)) {
            is_float = true;
            p = q;
            while (p < lx->end && is_digit(*p))
                p++;
        }
    }
    if (p < lx->end && (is_ident_start((unsigned char)*p) || is_digit(*p)))
        vm_fail_at(lx->vm, line, c0, "invalid %s literal", is_float ? "float" : "int");
    lx->p = p;
    if (is_float) {
        char *tmp = vm_strdup(lx->vm, s, (size_t)(p - s));
        double d = strtod(tmp, NULL);
        if (isinf(d))
            vm_fail_at(lx->vm, line, c0, "floating-point number too large");
        emit(lx, T_FLOAT, s, (size_t)(p - s), line, c0, sl_float(lx->vm, d));
        return;
    }
    if (*s == '0' && p - s > 1) {
        for (const char *q = s; q < p; q++)
            if (*q != '0')
                vm_fail_at(lx->vm, line, c0, "obsolete form of octal literal; use 0o%.*s", (int)(p - s - 1), s + 1);
    }
    bool ok;
    sl_val v = int_parse(lx->vm, s, (size_t)(p - s), 10, &ok);
    if (!ok)
        vm_fail_at(lx->vm, line, c0, "invalid int literal");
    emit(lx, T_INT, s, (size_t)(p - s), line, c0, v);
}

static const struct { const char *s; int t; } ops[] = {
    {"**=", T_STARSTAR}, /* placeholder: Starlark has no **=; handled as ** then = */
    {"//=", T_SLASHSLASH_EQ}, {"<<=", T_LTLT_EQ}, {">>=", T_GTGT_EQ},
    {"**", T_STARSTAR}, {"//", T_SLASHSLASH}, {"<<", T_LTLT}, {">>", T_GTGT}, {"<=", T_LE}, {">=", T_GE},
    {"==", T_EQL}, {"!=", T_NEQ}, {"+=", T_PLUS_EQ}, {"-=", T_MINUS_EQ}, {"*=", T_STAR_EQ}, {"/=", T_SLASH_EQ},
    {"%=", T_PERCENT_EQ}, {"&=", T_AMP_EQ}, {"|=", T_PIPE_EQ}, {"^=", T_CIRCUMFLEX_EQ}, {"->", T_ARROW},
    {"+", T_PLUS}, {"-", T_MINUS}, {"*", T_STAR}, {"/", T_SLASH}, {"%", T_PERCENT}, {"&", T_AMP}, {"|", T_PIPE},
    {"^", T_CIRCUMFLEX}, {"~", T_TILDE}, {".", T_DOT}, {",", T_COMMA}, {"=", T_EQ}, {";", T_SEMI}, {":", T_COLON},
    {"(", T_LPAREN}, {")", T_RPAREN}, {"[", T_LBRACK}, {"]", T_RBRACK}, {"{", T_LBRACE}, {"}", T_RBRACE},
    {"<", T_LT}, {">", T_GT},
};

token *lex_file(sl_vm *vm, const char *src, size_t len, size_t *ntok);
token *lex_file(sl_vm *vm, const char *src, size_t len, size_t *ntok)
{
    lexer L = {0}, *lx = &L;
    lx->vm = vm;
    lx->src = lx->p = src;
    lx->end = src + len;
    lx->line = 1;
    lx->linestart = src;
    lx->indents[0] = 0;
    lx->nindent = 1;
    bool at_line_start = true;
    for (;;) {
        if (at_line_start && lx->depth == 0) {
            /* measure the indentation; blank and comment lines do not count */
            int ind = 0;
            const char *p = lx->p;
            while (p < lx->end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f')) {
                if (*p == ' ')
                    ind++;
                else if (*p == '\t')
                    ind += 8 - ind % 8;
                p++;
            }
            if (p >= lx->end) {
                lx->p = p;
                break;
            }
            if (*p == '\n' || *p == '#') {
                while (p < lx->end && *p != '\n')
                    p++;
                if (p < lx->end) {
                    p++;
                    lx->line++;
                    lx->linestart = p;
                }
                lx->p = p;
                continue;
            }
            if (*p == '\\' && p + 1 < lx->end && p[1] == '\n') {
                /* a continuation at the start of a line: indentation continues on the next */
            }
            lx->p = p;
            at_line_start = false;
            int cur = lx->indents[lx->nindent - 1];
            if (ind > cur) {
                if (lx->nindent == 256)
                    vm_fail_at(vm, lx->line, 1, "too many levels of indentation");
                lx->indents[lx->nindent++] = ind;
                emit(lx, T_INDENT, p, 0, lx->line, col(lx, p), NULL);
            } else if (ind < cur) {
                while (lx->nindent > 1 && ind < lx->indents[lx->nindent - 1]) {
                    lx->nindent--;
                    emit(lx, T_OUTDENT, p, 0, lx->line, col(lx, p), NULL);
                }
                if (ind != lx->indents[lx->nindent - 1])
                    vm_fail_at(vm, lx->line, col(lx, p), "unindent does not match any outer indentation level");
            }
        }
        if (lx->p >= lx->end)
            break;
        const char *p = lx->p;
        unsigned char c = (unsigned char)*p;
        int line = lx->line, c0 = col(lx, p);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
            lx->p++;
            continue;
        }
        if (c == '#') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
            continue;
        }
        if (c == '\\') {
            if (p + 1 < lx->end && p[1] == '\n') {
                lx->p += 2;
                lx->line++;
                lx->linestart = lx->p;
                continue;
            }
            if (p + 2 < lx->end && p[1] == '\r' && p[2] == '\n') {
                lx->p += 3;
                lx->line++;
                lx->linestart = lx->p;
                continue;
            }
            vm_fail_at(vm, line, c0, "stray backslash in program");
        }
        if (c == '\n') {
            if (lx->depth == 0 && lx->n && lx->toks[lx->n - 1].kind != T_NEWLINE &&
                lx->toks[lx->n - 1].kind != T_INDENT && lx->toks[lx->n - 1].kind != T_OUTDENT)
                emit(lx, T_NEWLINE, p, 1, line, c0, NULL);
            lx->p++;
            lx->line++;
            lx->linestart = lx->p;
            at_line_start = lx->depth == 0;
            continue;
        }
        if (c == '"' || c == '\'') {
            scan_string(lx, false, false, line, c0, p);
            continue;
        }
        if (is_ident_start(c)) {
            /* string prefixes */
            const char *q = p;
            bool raw = false, bytes = false;
            for (int i = 0; i < 2 && q < lx->end && (*q == 'r' || *q == 'b'); i++, q++) {
                if (*q == 'r') {
                    if (raw) break;
                    raw = true;
                } else {
                    if (bytes) break;
                    bytes = true;
                }
            }
            if ((raw || bytes) && q < lx->end && (*q == '"' || *q == '\'')) {
                lx->p = q;
                scan_string(lx, raw, bytes, line, c0, p);
                continue;
            }
            while (lx->p < lx->end && (is_ident_start((unsigned char)*lx->p) || is_digit(*lx->p)))
                lx->p++;
            size_t n = (size_t)(lx->p - p);
            int kind = T_IDENT;
            for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
                if (strlen(keywords[i].w) == n && !memcmp(keywords[i].w, p, n))
                    kind = keywords[i].t;
            emit(lx, kind, p, n, line, c0, NULL);
            continue;
        }
        if (is_digit((char)c) || (c == '.' && p + 1 < lx->end && is_digit(p[1]))) {
            scan_number(lx, line, c0);
            continue;
        }
        int kind = 0;
        size_t n = 0;
        for (size_t i = 1; i < sizeof ops / sizeof *ops; i++) {
            size_t k = strlen(ops[i].s);
            if ((size_t)(lx->end - p) >= k && !memcmp(ops[i].s, p, k)) {
                kind = ops[i].t;
                n = k;
                break;
            }
        }
        if (!kind)
            vm_fail_at(vm, line, c0, "invalid character '%c' in program", c >= 0x20 && c < 0x7f ? c : '?');
        if (kind == T_LPAREN || kind == T_LBRACK || kind == T_LBRACE) {
            lx->depth++;
            if (lx->depth > 200)
                vm_fail_at(vm, line, c0, "brackets nested more than 200 deep");
        }
        if (kind == T_RPAREN || kind == T_RBRACK || kind == T_RBRACE) {
            if (lx->depth == 0) /* go.starlark.net's scanner words it so (syntax-errors.star) */
                vm_fail_at(vm, line, c0, "unexpected '%c'", *p);
            lx->depth--;
        }
        lx->p += n;
        emit(lx, kind, p, n, line, c0, NULL);
    }
    /* the last line's end, unless a bracket is still open: then the parser meets the end of file (syntax-errors) */
    if (lx->depth == 0 && lx->n && lx->toks[lx->n - 1].kind != T_NEWLINE && lx->toks[lx->n - 1].kind != T_OUTDENT &&
        lx->toks[lx->n - 1].kind != T_INDENT)
        emit(lx, T_NEWLINE, lx->p, 0, lx->line, col(lx, lx->p), NULL);
    while (lx->nindent > 1) {
        lx->nindent--;
        emit(lx, T_OUTDENT, lx->p, 0, lx->line, col(lx, lx->p), NULL);
    }
    emit(lx, T_EOF, lx->p, 0, lx->line, col(lx, lx->p), NULL);
    *ntok = lx->n;
    return lx->toks;
}
