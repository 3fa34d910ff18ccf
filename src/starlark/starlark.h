/* A Starlark interpreter (the dialect of go.starlark.net at 68633c9 with sets, global reassignment, top-level
 * control flow, while loops and recursion, as kpt's starlark function runs it), for scripts written by untrusted
 * package authors: every run is bounded by a step budget, a memory budget, a call depth and size limits, and a
 * script can reach nothing outside the values it is given (no files, no environment, no network, no clock).
 *
 * This is the interface the rest of the program uses: make a VM, predeclare values, run a file, read the values
 * back. Errors never escape as crashes: sl_exec returns -1 and sl_error() gives one line "file:line:col: message".
 * Everything a VM allocates is freed with it. */
#ifndef CMP_STARLARK_STARLARK_H
#define CMP_STARLARK_STARLARK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sl_vm sl_vm;
typedef struct sl_obj *sl_val; /* a value; small ints are tagged pointers (never dereference one yourself) */

typedef struct sl_limits {
    uint64_t max_steps;     /* statements, loop iterations, calls and per-element work of builtins */
    uint64_t max_memory;    /* bytes the VM may allocate (no collector: what a script drops still counts) */
    uint32_t max_depth;     /* nested calls */
    uint64_t max_len;       /* elements of one string, bytes, list, tuple, dict or set; bits of one int */
} sl_limits;

enum sl_type {
    SL_NONE, SL_BOOL, SL_INT, SL_FLOAT, SL_STRING, SL_BYTES, SL_LIST, SL_TUPLE, SL_DICT, SL_SET, SL_FUNCTION,
    SL_BUILTIN, SL_RANGE, SL_STRUCT, SL_MODULE, SL_CELL, SL_ELEMS, SL_HOST,
};

/* A builtin: self is the receiver of a method (NULL otherwise); args are the positional arguments, kw the keyword
 * ones as nkw (name, value) pairs (names are strings). Errors go through sl_fail (it does not return). */
typedef sl_val (*sl_native)(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data);

/* hash_seed: where the hashes of dict and set keys start. A fixed one makes a script's work the same on every run;
 * the first probe past a limit (keys chosen to collide from that start) draws a secret seed, once per VM, and the
 * dicts are rehashed as they are next used, so no script can make their operations quadratic. */
sl_vm *sl_new(const sl_limits *lim, uint64_t hash_seed);
/* Whether vm drew its secret seed (for tests). */
bool sl_reseeded(const sl_vm *vm);
void sl_free(sl_vm *vm);
void sl_predeclare(sl_vm *vm, const char *name, sl_val v);
/* Modules load() may name: a struct-like value whose members the load statement binds. */
void sl_add_module(sl_vm *vm, const char *name, sl_val module);
/* Runs src as file `name`: 0, or -1 with sl_error set. The module's globals are frozen afterwards. */
int sl_exec(sl_vm *vm, const char *name, const char *src, size_t len);
const char *sl_error(const sl_vm *vm);
/* Parses src (and resolves its names when resolve is set) without running it: 0, or -1 with sl_error set. What
 * go.starlark.net's parser alone reports (its syntax-errors.star) and what the parser's fuzz target drives. */
int sl_check(sl_vm *vm, const char *name, const char *src, size_t len, bool resolve);
/* the same without its position: what go.starlark.net's EvalError.Error() gives */
const char *sl_error_message(const sl_vm *vm);
/* Runs fn(vm, arg) so that an error of the VM's (a budget running out while values are made outside sl_exec)
 * returns -1 with sl_error set instead of ending the process. name is the file errors name. */
int sl_protect(sl_vm *vm, const char *name, void (*fn)(sl_vm *vm, void *arg), void *arg);
/* The global `name` of the last sl_exec, or NULL. */
sl_val sl_global(sl_vm *vm, const char *name);
uint64_t sl_steps_used(const sl_vm *vm);

/* errors from builtins: records "file:line:col: message" at the running call and jumps out */
_Noreturn void sl_fail(sl_vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Calls fn; on an error returns NULL with the VM's record set (sl_error, and sl_error_message without the
 * position), the VM usable afterwards. */
sl_val sl_call_protected(sl_vm *vm, sl_val fn, int nargs, sl_val *args);
sl_val sl_call(sl_vm *vm, sl_val fn, int nargs, sl_val *args, int nkw, sl_val *kw);

/* values */
enum sl_type sl_type_of(sl_val v);
const char *sl_type_name(sl_val v);
sl_val sl_none(void);
sl_val sl_bool(bool b);
sl_val sl_int(sl_vm *vm, int64_t i);
sl_val sl_float(sl_vm *vm, double d);
sl_val sl_str(sl_vm *vm, const char *s, size_t n);
sl_val sl_cstr(sl_vm *vm, const char *s);
sl_val sl_list(sl_vm *vm, size_t cap);
void sl_list_append(sl_vm *vm, sl_val list, sl_val v);
sl_val sl_tuple(sl_vm *vm, size_t n, const sl_val *items);
sl_val sl_dict(sl_vm *vm);
sl_val sl_dict_sized(sl_vm *vm, size_t n); /* with room for n entries */
void sl_dict_set(sl_vm *vm, sl_val dict, sl_val k, sl_val v);
sl_val sl_builtin(sl_vm *vm, const char *name, sl_native fn, void *data);
/* a struct (kpt's ctx, modules): fixed named fields */
sl_val sl_struct(sl_vm *vm, const char *ctor, int n, const char *const *names, const sl_val *vals);

/* a module value (what load() binds, or the spec tests' module()): named members, repr <module "name"> */
sl_val sl_module_value(sl_vm *vm, const char *name, int n, const char *const *names, const sl_val *vals);

/* A type of the host's own (go.starlark.net's application-defined values: the spec tests' hasfields and
 * fibonacci). Every callback may be NULL (then the value has no fields, refuses them, has no operators, is not
 * iterable). Callbacks report errors with sl_fail. */
typedef struct sl_host_type {
    const char *name; /* type() and repr */
    sl_val (*getattr)(sl_vm *vm, sl_val self, const char *name);            /* NULL: no such field */
    /* x.name = v: NULL when set, else the "no such field" message (the VM adds a spelling hint) */
    const char *(*setattr)(sl_vm *vm, sl_val self, const char *name, sl_val v);
    int (*attrnames)(sl_vm *vm, sl_val self, const char ***names);         /* dir(): sorted */
    sl_val (*binary)(sl_vm *vm, int op, sl_val x, sl_val y, bool self_left); /* op is the character ('+'); NULL: none */
    bool (*next)(sl_vm *vm, sl_val self, uint64_t i, sl_val *out);        /* the i-th element; false at the end */
    void (*freeze)(sl_val self);                                          /* freeze what it holds */
    bool hashable;
    uint32_t hash;
} sl_host_type;
sl_val sl_host_new(sl_vm *vm, const sl_host_type *type, void *data);
void *sl_host_data(sl_val v);
bool sl_frozen(sl_val v);

/* go.starlark.net's json module: encode, decode */
sl_val sl_json_module(sl_vm *vm);

bool sl_truth(sl_val v);
/* int64 value of an int (false when it does not fit) */
bool sl_as_int64(sl_val v, int64_t *out);
double sl_as_float(sl_val v);
const char *sl_str_data(sl_val v, size_t *len); /* strings and bytes */
size_t sl_len(sl_val v);                        /* lists, tuples, dicts, sets */
sl_val sl_index(sl_val v, size_t i);            /* lists and tuples */
sl_val sl_dict_key(sl_val d, size_t i);         /* i-th live entry in order */
sl_val sl_dict_val(sl_val d, size_t i);
sl_val sl_dict_get(sl_vm *vm, sl_val d, sl_val k);
/* repr/str text (arena of the VM) */
const char *sl_repr(sl_vm *vm, sl_val v);
const char *sl_tostr(sl_vm *vm, sl_val v);
void sl_freeze(sl_val v);
bool sl_equal(sl_vm *vm, sl_val a, sl_val b);
#endif
