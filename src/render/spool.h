/* The output on its way to Argo CD, held back until all of it is known to fit the output limit (all or nothing):
 * in memory while it is small, else in an unnamed temporary file in the operator's TMPDIR, so that each document is
 * emitted once and a large output never sits in memory beside the tree. */
#ifndef CMP_RENDER_SPOOL_H
#define CMP_RENDER_SPOOL_H
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

typedef struct spool {
    buf mem;            /* the whole output while it fits the budget; once there is a file, what is not in it yet */
    int file;           /* everything once the output went over the budget; -1 before */
    size_t budget;      /* bytes kept in memory before the file is made, and the size of the pieces written to it */
    size_t total;       /* bytes appended so far, wherever they went */
    size_t mark;        /* mem's length when spool_buf handed it out */
    size_t largest;     /* the most bytes appended between a spool_buf and its spool_settle (one document) */
    const char *tmpdir; /* where the file goes */
    bool lost;          /* no file could be made or written: nothing is kept, only counted (see spool_settle) */
} spool;

void spool_init(spool *s, const char *tmpdir, size_t budget);
/* The buffer the next bytes go to: append to it, then call spool_settle. */
buf *spool_buf(spool *s);
/* Counts what was appended; past the budget, moves what memory holds to the file. When no file can be made or
 * written, everything is dropped and s->lost set: total still counts, and the caller produces the output again
 * when it writes. Never fails otherwise. */
void spool_settle(spool *s);
/* Everything appended is in memory or in the file (or s->lost is set): call it before spool_write. */
void spool_finish(spool *s);
/* Writes the output to fd: memory, or the file (not when s->lost). -1 with errno. */
int spool_write(spool *s, int fd);
void spool_free(spool *s);

#endif
