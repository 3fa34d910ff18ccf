/* Errors and warnings, in the style of libgit2: a function that fails returns -1 and records why with fail(); its
 * caller decides what to do with that record, and only src/main.c prints (one line, exit 1).
 *
 * The record is the render's error unless a caller asked for the detail itself: a caller with a fallback (text that
 * may or may not be YAML, a best-effort announcement) captures the errors of the calls it tries into a diag_detail
 * of its own, then raises it with diag_raise(), rewords it, or drops it. The render's error is never recorded and
 * then cleared: what a try records cannot hide or replace an error from before it.
 *
 * Format of the one line: "cmp-generate: <file>:<line>: <step>: <message>" with the parts that are known. */
#ifndef CMP_UTIL_DIAG_H
#define CMP_UTIL_DIAG_H
#include <stdbool.h>
#include <stddef.h>

/* What went wrong, as fail() was told it. */
typedef struct diag_detail {
    bool failed;      /* the rest is meaningful only when set */
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
