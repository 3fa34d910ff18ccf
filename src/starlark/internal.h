/* The interpreter's own layouts, shared by the files of src/starlark and nobody else: objects, the syntax tree,
 * the VM with its budgets. One header so that each concern (lexer, parser, resolver, values, evaluation, builtins,
 * formatting) can live in its own file and still see the same structures. */
#ifndef CMP_STARLARK_INTERNAL_H
#define CMP_STARLARK_INTERNAL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "starlark/starlark.h"

/* ---- objects ---- */
struct sl_obj {
    uint8_t type;
    uint8_t frozen;
    uint8_t flags;
    uint8_t pad;
    uint32_t iters; /* live iterations over a list, dict or set: a mutation then is an error */
};

#define IS_SMALL(v) (((uintptr_t)(v)) & 1)
#define SMALL_VAL(v) (((int64_t)(intptr_t)(v)) >> 1)
#define SMALL_MAX (((int64_t)1 << 61) - 1)
#define SMALL_MIN (-((int64_t)1 << 61))
#define MK_SMALL(i) ((sl_val)(intptr_t)((uint64_t)(i) << 1 | 1))

typedef struct { struct sl_obj h; double d; } sl_float_o;
/* a big int: never one that fits a small int */
typedef struct { struct sl_obj h; int sign; uint32_t n; uint32_t *d; } sl_big_o;
/* hashed: 0, or the VM's seed epoch + 1 the hash was computed under (a reseed makes the cached ones stale) */
typedef struct { struct sl_obj h; uint32_t hash; uint8_t hashed; size_t len; char s[]; } sl_str_o; /* strings, bytes */
typedef struct { struct sl_obj h; size_t len, cap; sl_val *v; } sl_list_o;
typedef struct { struct sl_obj h; size_t len; sl_val v[]; } sl_tuple_o;
typedef struct { sl_val k, v; uint32_t hash; } sl_entry;
/* epoch: the VM's seed epoch its entries' hashes are of (dict.c rehashes a dict of an older one when next used) */
typedef struct { struct sl_obj h; size_t len, n, cap; sl_entry *e; int32_t *idx; uint32_t idxcap; uint8_t epoch; } sl_dict_o; /* dicts, sets */
typedef struct sl_funcinfo sl_funcinfo;
typedef struct sl_module sl_module;
typedef struct { struct sl_obj h; sl_funcinfo *fi; sl_val *defaults; sl_val *free; sl_module *mod; } sl_func_o;
typedef struct { struct sl_obj h; const char *name; sl_native fn; void *data; sl_val self; } sl_builtin_o;
typedef struct { struct sl_obj h; int64_t start, stop, step, len; } sl_range_o;
/* structs and load()ed modules (flags 1): names sorted */
typedef struct { struct sl_obj h; const char *ctor; int n; const char **names; sl_val *vals; } sl_struct_o;
typedef struct { struct sl_obj h; sl_val v; } sl_cell_o;
/* s.elems(), s.elem_ords(), s.codepoints(), s.codepoint_ords() */
typedef struct { struct sl_obj h; sl_val s; int kind; } sl_elems_o;
typedef struct { struct sl_obj h; const sl_host_type *t; void *data; } sl_host_o;

#define AS(T, v) ((T *)(v))

/* ---- syntax tree ---- */
enum {
    /* expressions */
    E_IDENT = 1, E_CONST, E_LIST, E_TUPLE, E_DICT, E_ENTRY, E_LISTCOMP, E_DICTCOMP, E_CLAUSE_FOR, E_CLAUSE_IF, E_UNARY,
    E_BINARY, E_AND, E_OR, E_COND, E_CALL, E_ARG_KW, E_ARG_STAR, E_ARG_STARSTAR, E_INDEX, E_SLICE, E_DOT, E_LAMBDA,
    E_PAREN,
    /* statements */
    S_EXPR, S_ASSIGN, S_AUG, S_DEF, S_IF, S_FOR, S_WHILE, S_RETURN, S_BREAK, S_CONTINUE, S_PASS, S_LOAD,
};
/* tokens that are also operators in the tree */
enum {
    T_EOF = 1, T_NEWLINE, T_INDENT, T_OUTDENT, T_IDENT, T_INT, T_FLOAT, T_STRING, T_BYTES,
    T_PLUS, T_MINUS, T_STAR, T_SLASH, T_SLASHSLASH, T_PERCENT, T_STARSTAR, T_AMP, T_PIPE, T_CIRCUMFLEX, T_LTLT, T_GTGT,
    T_TILDE, T_DOT, T_COMMA, T_EQ, T_SEMI, T_COLON, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
    T_LT, T_GT, T_GE, T_LE, T_EQL, T_NEQ, T_PLUS_EQ, T_MINUS_EQ, T_STAR_EQ, T_SLASH_EQ, T_SLASHSLASH_EQ, T_PERCENT_EQ,
    T_AMP_EQ, T_PIPE_EQ, T_CIRCUMFLEX_EQ, T_LTLT_EQ, T_GTGT_EQ, T_ARROW,
    /* keywords */
    T_AND, T_BREAK, T_CONTINUE, T_DEF, T_ELIF, T_ELSE, T_FOR, T_IF, T_IN, T_LAMBDA, T_LOAD, T_NOT, T_NOT_IN, T_OR,
    T_PASS, T_RETURN, T_WHILE,
    /* reserved words: errors */
    T_RESERVED,
};

enum { SC_LOCAL = 1, SC_FREE, SC_GLOBAL, SC_PREDECLARED };

typedef struct ast ast;
struct ast {
    uint16_t kind, op;
    int line, col;
    ast *a, *b, *c;
    ast **list; /* items, arguments, clauses, a block's statements */
    int n;
    ast **list2; /* an else block */
    int n2;
    const char *name; /* identifiers, keyword arguments, attributes */
    sl_val val;       /* constants; a predeclared name's value */
    int scope, index; /* identifiers, after resolving */
    int height;       /* levels of expression below: the evaluator recurses that deep */
    sl_funcinfo *fi;  /* def, lambda */
};

typedef struct { bool outer_local; int index; } sl_freevar;

struct sl_funcinfo {
    const char *name;
    int line, col;
    ast **params; /* E_IDENT (plain), S_ASSIGN-like: a=ident, b=default (kind E_ARG_KW), E_ARG_STAR (a may be NULL), E_ARG_STARSTAR */
    int nparams;
    int npos;       /* parameters that may be given by position */
    int nkwonly;    /* after * or *args */
    int varargs;    /* index of the *args local, or -1 */
    int kwargs;     /* index of the **kwargs local, or -1 */
    int ndefaults;  /* expressions with defaults, in parameter order (positional then keyword-only) */
    int *default_of; /* per named parameter: index into defaults, or -1 */
    ast **body;
    int nbody;
    int nlocals;
    const char **localnames;
    bool *cell; /* per local: captured by an inner function (the slot holds a cell) */
    sl_freevar *freevars;
    int nfree;
    int nfreecap;
    int localcap;
    bool is_lambda;
};

struct sl_module {
    const char *name;
    int nglobals, globcap;
    const char **globnames;
    sl_val *globals;
    sl_funcinfo *top;
};

/* ---- the VM ---- */
typedef struct sl_chunk sl_chunk;
typedef struct { sl_val coll; } sl_iterrec;

typedef struct sl_frame {
    struct sl_frame *parent;
    sl_funcinfo *fi;
    sl_val *locals;
    sl_val *free;
    sl_module *mod;
    const char *fname; /* the function's name for messages */
    ast *pos;          /* what runs now */
} sl_frame;

typedef struct sl_catch {
    jmp_buf jb;
    struct sl_catch *outer;
    size_t iters;
    uint32_t depth;
    sl_frame *frame;
} sl_catch;

typedef struct { const char *name; sl_val v; } sl_named;

struct sl_vm {
    sl_limits lim;
    uint64_t seed;  /* the seed sl_new was given; a secret one from the first probe past DICT_PROBE_LIMIT (dict.c) */
    uint8_t epoch;  /* 0 with the given seed, 1 once reseeded */
    uint64_t steps;
    uint64_t mem;
    uint32_t depth;
    sl_chunk *chunks;
    unsigned char *cur, *end;
    sl_catch *catcher;
    sl_frame *frame;
    const char *file;
    sl_iterrec *iters;
    size_t niters, itercap;
    sl_named *pre;
    int npre, precap;
    sl_named *mods;
    int nmods, modcap;
    sl_module *last;
    int nest; /* repr/compare recursion */
    char *stack_base; /* where the running sl_exec started: the C stack calls may use is measured from here */
    char err[1024];
    char msg[900];
};

/* memory (alloc.c) */
void *vm_alloc(sl_vm *vm, size_t n);
void *vm_alloc_raw(sl_vm *vm, size_t n); /* not zeroed */
char *vm_strdup(sl_vm *vm, const char *s, size_t n);
void vm_steps(sl_vm *vm, uint64_t n);
void vm_check_len(sl_vm *vm, uint64_t n, const char *what);
_Noreturn void vm_fail_at(sl_vm *vm, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* a growable text (in the VM's memory) */
typedef struct { sl_vm *vm; char *s; size_t len, cap; } sbuf;
void sb_init(sbuf *b, sl_vm *vm);
void sb_add(sbuf *b, const char *s, size_t n);
void sb_addc(sbuf *b, char c);
void sb_adds(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
sl_val sb_str(sbuf *b);

/* ints (int.c) */
sl_val int_from_big(sl_vm *vm, int sign, uint32_t *d, uint32_t n);
sl_val int_add(sl_vm *vm, sl_val a, sl_val b);
sl_val int_sub(sl_vm *vm, sl_val a, sl_val b);
sl_val int_mul(sl_vm *vm, sl_val a, sl_val b);
sl_val int_floordiv(sl_vm *vm, sl_val a, sl_val b);
sl_val int_mod(sl_vm *vm, sl_val a, sl_val b);
sl_val int_neg(sl_vm *vm, sl_val a);
sl_val int_bitop(sl_vm *vm, int op, sl_val a, sl_val b);
sl_val int_invert(sl_vm *vm, sl_val a);
sl_val int_shift(sl_vm *vm, bool left, sl_val a, sl_val b);
int int_cmp(sl_val a, sl_val b);
int int_sign(sl_val a);
void int_format(sl_vm *vm, sbuf *b, sl_val a, int base, bool upper);
sl_val int_parse(sl_vm *vm, const char *s, size_t n, int base, bool *ok);
double int_to_double(sl_val a, bool *overflow);
sl_val int_from_double(sl_vm *vm, double d);
/* compares int a with float f exactly */
int int_cmp_float(sl_val a, double f);
uint32_t int_hash(sl_vm *vm, sl_val a);
uint64_t int_bitlen(sl_val a);

/* values (value.c) */
/* The three singletons are constant (read-only memory): a value is an sl_val, so the const goes here, once. */
extern const struct sl_obj sl_none_o, sl_true_o, sl_false_o;
#define NONE ((sl_val)&sl_none_o)
#define TRUE_V ((sl_val)&sl_true_o)
#define FALSE_V ((sl_val)&sl_false_o)
static inline int TYPE(sl_val v) { return IS_SMALL(v) ? SL_INT : v->type; }
sl_val mk_str(sl_vm *vm, const char *s, size_t n, bool bytes);
sl_val mk_tuple(sl_vm *vm, size_t n);
sl_val mk_list_from(sl_vm *vm, size_t n, const sl_val *v);
uint32_t vm_hash(sl_vm *vm, sl_val v);
uint64_t hash_bytes_seeded(uint64_t seed, const void *p, size_t n);
bool vm_equal(sl_vm *vm, sl_val a, sl_val b);
/* -1, 0, 1 for <, ==, >; fails when the values are not ordered */
int vm_compare(sl_vm *vm, sl_val a, sl_val b);
bool vm_cmp_op(sl_vm *vm, int op, sl_val a, sl_val b);
void vm_repr(sl_vm *vm, sbuf *b, sl_val v);
void vm_str(sl_vm *vm, sbuf *b, sl_val v);
void check_mutable(sl_vm *vm, sl_val v, const char *what);
void check_mutable_in(sl_vm *vm, sl_val v, const char *fn, const char *what); /* "fn: cannot ..." */

/* dicts and sets (dict.c) */
sl_val mk_dict(sl_vm *vm, int type);
sl_entry *dict_find(sl_vm *vm, sl_val d, sl_val k);
void dict_put(sl_vm *vm, sl_val d, sl_val k, sl_val v);
bool dict_del(sl_vm *vm, sl_val d, sl_val k, sl_val *old);
void dict_clear(sl_vm *vm, sl_val d);

/* iteration (eval.c) */
typedef struct { sl_val coll; size_t i; bool tracked; } sl_iter;
void iter_begin(sl_vm *vm, sl_iter *it, sl_val v);
bool iter_next(sl_vm *vm, sl_iter *it, sl_val *out);
void iter_end(sl_vm *vm, sl_iter *it);
/* v can be iterated by a builtin */
bool iterable(sl_val v);
bool callable(sl_val v); /* a function or a builtin */
/* all elements of an iterable as a fresh array ("got X, want iterable" otherwise) */
sl_val *iter_all(sl_vm *vm, sl_val v, size_t *n);

/* evaluation (eval.c) */
sl_val vm_binary(sl_vm *vm, int op, sl_val a, sl_val b);
sl_val vm_getattr(sl_vm *vm, sl_val v, const char *name, bool must);
void vm_setattr(sl_vm *vm, sl_val v, const char *name, sl_val x);
sl_val vm_index(sl_vm *vm, sl_val v, sl_val k);
void vm_setindex(sl_vm *vm, sl_val v, sl_val k, sl_val x);

/* builtins and methods (builtins.c, methods.c) */
sl_val universe_lookup(const char *name);
int universe_names(const char **out, int cap);
void universe_init(void);
sl_val method_lookup(sl_vm *vm, sl_val v, const char *name);
const char **method_names(sl_val v, int *n);
int slice_indices(sl_vm *vm, int64_t len, sl_val lo, sl_val hi, sl_val step, int64_t *start, int64_t *stop, int64_t *st);
void unpack(sl_vm *vm, const char *fn, int nargs, sl_val *args, int nkw, sl_val *kw, int min, const char *const *names,
            sl_val *out, int nout);
int64_t arg_int(sl_vm *vm, const char *fn, sl_val v);
const char *arg_str(sl_vm *vm, const char *fn, sl_val v, size_t *len);

/* formatting (format.c) */
void float_format(sbuf *b, double d, char conv, int prec);
sl_val str_percent(sl_vm *vm, sl_val fmt, sl_val args);
sl_val str_format(sl_vm *vm, sl_val fmt, int nargs, sl_val *args, int nkw, sl_val *kw);

/* front end (lex.c, parse.c, resolve.c) */
typedef struct lexer lexer;
typedef struct { int kind; int line, col; const char *s; size_t len; sl_val val; } token;
ast *parse_file(sl_vm *vm, const char *src, size_t len);
sl_module *resolve_file(sl_vm *vm, ast *file);

/* substring search; each candidate position it compares costs steps, so no search outlives the budget */
const char *sl_find(sl_vm *vm, const char *hay, size_t n, const char *needle, size_t m);

/* the nearest of n names to x for a "did you mean" (spell.c), or NULL */
const char *sl_nearest(const char *x, const char *const *cands, int n);

/* utf-8 */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
int utf8_encode(uint32_t cp, char *out);
sl_val utf8_sanitized(sl_vm *vm, const char *s, size_t n, bool bytes);
/* a code point as Go's range over a string reads it (a byte that starts no valid UTF-8 is U+FFFD, one byte), the
 * one after s or the one ending at s + n (unicode.c) */
uint32_t utf8_next(const char *s, size_t n, size_t *width);
uint32_t utf8_prev(const char *s, size_t n, size_t *width);

/* Go's unicode package, Unicode 15.0.0 (unicode.c) */
uint32_t uc_to_upper(uint32_t r);
uint32_t uc_to_lower(uint32_t r);
uint32_t uc_to_title(uint32_t r);
bool uc_is_letter(uint32_t r);
bool uc_is_digit(uint32_t r);
bool uc_is_upper(uint32_t r);
bool uc_is_lower(uint32_t r);
bool uc_is_title(uint32_t r);
bool uc_is_space(uint32_t r);
bool uc_is_cased(uint32_t r); /* go.starlark.net's isCasedRune */
#endif
