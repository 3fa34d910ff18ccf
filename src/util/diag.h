/* Errors and warnings, in the style of libgit2: a function that fails returns -1 and records why with fail(); its
 * caller decides what to do with that record, and only src/main.c prints (one line, exit 1).
 *
 * The record is the render's error unless a caller asked for the detail itself: a caller with a fallback (text that
 * may or may not be YAML, a best-effort announcement) captures the errors of the calls it tries into a diag_detail
 * of its own, then raises it with diag_raise(), rewords it, or drops it. The render's error is never recorded and
 * then cleared: what a try records cannot hide or replace an error from before it.
 *
 * A function handed text without knowing where it came from (a field path, a label selector, an exec command line,
 * a chart archive's bytes) fails with fail_here(): the error is recorded without file or line, and the caller that
 * knows them places it with diag_locate(), putting its own context in front. So no error text travels back through
 * an out-parameter.
 *
 * The three error styles of src, and where each belongs:
 *   1. the record: return -1 (or NULL) after fail() / fail_here() (or a helper over them: fn_fail, fn_locate...).
 *      Everything on a render's path that can fail for a reason worth a sentence. The Starlark interpreter, which
 *      stands alone, keeps the same kind of record per VM (sl_error(), set by sl_fail()).
 *   2. errno: POSIX-shaped wrappers (src/util/fsutil.h, child, path) return -1 with errno set, as the call they wrap
 *      does; the caller, which knows the file and the step, turns errno into a message with fail().
 *   3. a pure validator: a function that checks one rule and returns the rule's text when it is broken, NULL when it
 *      holds (no side effect, nothing recorded); the caller words the error around it (settings/value_rules.h,
 *      kustomize/helm_guard.h).
 * The one exception: serve-params' request parser (src/params/request.c, json.c) writes its message into a buffer
 * the caller gives, for it runs in the server's connection threads, outside the work lock the record is shared
 * under, and its message goes into an HTTP answer rather than to stderr.
 *
 * Format of the one line: "cmp-generate: <file>:<line>: <step>: <message>" with the parts that are known. */
#ifndef CMP_UTIL_DIAG_H
#define CMP_UTIL_DIAG_H
#include <stdbool.h>
#include <stddef.h>

/* What went wrong, as fail() was told it. */
typedef struct diag_detail {
    bool failed;      /* the rest is meaningful only when set */
    bool unplaced;    /* recorded by fail_here(): the file and line are the caller's to give (diag_locate) */
    int line;         /* 0: none */
    const char *step; /* the step running when it failed (outlives it, as diag_set_step's argument does) */
    char file[1024];  /* "": none */
    char message[2048]; /* the message alone, without file, line or step */
    char text[2048];    /* the whole line: "<file>:<line>: <step>: <message>" */
} diag_detail;

/* The step now running ("read", "parse", "pipeline.mutators[1] set-labels", ...). Not copied: pass a string that outlives the step. */
void diag_set_step(const char *step);
const char *diag_step(void);
/* Records the error (if none yet) and returns -1, so callers can write `return fail(...)`. line <= 0 omits the line. */
int fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fails before the location is known: records the error (if none yet) with no file and no line, marked as waiting
 * for them, and returns -1. For a function that is handed text or bytes and cannot know which file and line they
 * came from; its caller, which can, places the error with diag_locate(). The step is the one running now, as with
 * fail(). An error never placed is printed as fail(NULL, 0, ...) would print it. */
int fail_here(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The caller's half of fail_here(): when the record in use holds an error still waiting for its place, gives it
 * file and line (as fail() takes them) and puts the context (printf format; NULL: none) in front of its message,
 * "<context>: <message>", so the line reads as if the caller had failed with that message itself. An error that was
 * recorded with its place (fail(), even fail(NULL, 0, ...)) is left as it is; no error at all is recorded as the
 * context alone, never a silent success. Returns -1, so callers can write `return diag_locate(...)`:
 *     if (fieldpath_parse(a, text, regex, &fp) < 0)
 *         return diag_locate(file, line, "replacements[%zu].source.fieldPath", i); */
int diag_locate(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whether the record now in use (the render's, or the capture around the running code) holds an error, and its
 * whole line. */
bool diag_failed(void);
const char *diag_message(void);
/* A fresh start: no error, no step, no warnings, no capture. */
void diag_reset(void);

/* From now on, errors go into *into (emptied first) instead of the record in use, until diag_restore(outer) with the
 * pointer this returned. Captures nest. For callers that try something and fall back when it fails:
 *     diag_detail why;
 *     diag_detail *outer = diag_capture(&why);
 *     int rc = try_it(...);
 *     diag_restore(outer);
 *     if (rc < 0) ... diag_raise(&why), or a message of the caller's, or the fallback ... */
diag_detail *diag_capture(diag_detail *into);
void diag_restore(diag_detail *outer);
/* Records a captured error in the record now in use, as fail() would have (same file, line, step and message).
 * Returns -1. */
int diag_raise(const diag_detail *d);

/* A warning: the work goes on. Kept in order; main prints each as "cmp-generate: warning: <text>" (before the
 * error, if the run then fails). One line each. */
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The i-th warning recorded (from 0), or NULL past the last. */
const char *diag_warning(size_t i);
/* The one escaping path for what reaches stderr (main writes every line through it; shown() uses it for text quoted
 * in a message): appends s[0..n) to out with every byte that could act on a terminal or break the line shown as a
 * visible escape: CR, LF and TAB as \r, \n, \t; the other C0 controls (ESC, BEL, NUL...) and DEL as \x1b, \x07...;
 * the C1 controls, U+2028/U+2029 and the bidirectional overrides and isolates as \u009b, \u2028...; a byte that is
 * not part of valid UTF-8 as \xff. The backslash itself is left as it is, so escaping twice changes nothing more
 * than escaping once: text escaped early (shown) is escaped again at the end unchanged. */
struct buf;
void text_escape(struct buf *out, const char *s, size_t n);
/* Text an author wrote (a name, a parameter) quoted in a message or warning: cut at SHOWN_MAX bytes (on a character
 * boundary) with "...", escaped as text_escape does. shown_in writes it into out (cap bytes: SHOWN_MAX * 6 + 4 holds
 * any; a smaller one cuts the text short, never inside an escape). */
#define SHOWN_MAX 80
struct arena;
const char *shown(struct arena *a, const char *s);
const char *shown_in(char *out, size_t cap, const char *s, size_t max);
#endif
