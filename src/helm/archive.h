/* A chart archive (.tgz) read the way helm reads it, so that what helm_confine checks is what helm loads. helm
 * unpacks an archive with Go's compress/gzip and archive/tar and picks its chart files with its own loader
 * (pkg/chart/loader/archive.go); a reader that decodes one byte differently (a second gzip member, a size field
 * with a leading NUL, a PAX size record, a name helm cleans) lets an archive show us one file list and helm
 * another. So this reader mirrors those three, and refuses what it cannot show to read as they do (an unknown entry
 * type, a sparse file, a global header that names a path or size, a name that is not UTF-8, bytes after the gzip
 * stream, ...) instead of guessing. helm_archive.c says, rule by rule, which Go behaviour each line follows. */
#ifndef CMP_FUNCTIONS_HELM_ARCHIVE_H
#define CMP_FUNCTIONS_HELM_ARCHIVE_H
#include <stddef.h>

#include "util/arena.h"

typedef struct helm_archive_entry {
    size_t index; /* 1 for the first entry Go's tar reader returns */
    const char *raw; /* its name as Go's archive/tar returns it (ustar prefix, PAX path or GNU long name applied):
                      * valid UTF-8 without NUL */
    /* The chart file helm's loader makes of it: the first path component dropped, the rest cleaned ("c/./x" is
     * "x", "c\\values.schema.json" is "values.schema.json"). NULL when helm keeps no file for it (a directory, a
     * PAX global header) or fails on its name (an absolute path, one that leaves the chart). */
    const char *name;
    const unsigned char *data; /* what helm reads for it, a UTF-8 byte order mark dropped as helm drops it; empty
                                * for links and devices. Valid during the callback only. */
    size_t size;
} helm_archive_entry;

enum {
    HELM_ARCHIVE_OK = 0,
    HELM_ARCHIVE_STOPPED = -1,  /* the callback returned nonzero */
    HELM_ARCHIVE_REFUSED = -2,  /* recorded with fail_here(): a sentence without the archive's name, which the
                                 * caller, knowing the archive and the file that named it, puts in front
                                 * (diag_locate) */
    HELM_ARCHIVE_TOO_LARGE = -3 /* it unpacks to more than max_unpacked bytes */
};

/* Unpacks gz (len bytes: every gzip member, as one stream) into memory, at most max_unpacked bytes, and calls
 * fn(ctx, entry) for every entry Go's tar reader returns, in order (so a name that appears twice comes twice).
 * Strings live in a. */
int helm_archive_read(arena *a, const unsigned char *gz, size_t len, size_t max_unpacked,
                      int (*fn)(void *ctx, const helm_archive_entry *e), void *ctx);
#endif
