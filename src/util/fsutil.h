/* Reading package files safely: size limits, containment inside the package root, and text checks. */
#ifndef CMP_UTIL_FSUTIL_H
#define CMP_UTIL_FSUTIL_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/limits.h"

/* The one rule for a CMP_* number: decimal digits only (no sign, no spaces), from min to max; with bytes, one K,
 * M or G (or k, m, g) may follow, times 1024, 1024^2 or 1024^3. Returns 0 and sets *out, or -1 when the text
 * breaks the rule (including overflow). */
int parse_env_number(const char *text, bool bytes, unsigned long long min, unsigned long long max,
                     unsigned long long *out);

/* Reads a whole file (after checking it stays inside root_real when it is a symlink) into a malloc'd buffer.
 * Strips a UTF-8 byte order mark, rejects NUL bytes and invalid UTF-8. display names the file in errors. L: the
 * operator's max-file-bytes and max-total-bytes (NULL: the defaults). */
int read_text_file(const limits *L, const char *path, const char *display, char **out, size_t *len);
/* The same file, the same checks and messages, without ever holding the whole text: a first pass checks it piece
 * by piece, a second hands the pieces (64 KiB, the byte order mark left out) to fn, which returns 0 or -1 (fail()
 * said why). For a text whose reader takes pieces (yaml_stream), so that a big file's text never sits beside its
 * tree. 0 or -1. */
typedef int (*text_piece_fn)(void *ud, const char *data, size_t len);
int read_text_file_pieces(const limits *L, const char *path, const char *display, text_piece_fn fn, void *ud);
/* A regular file's bytes (at most max; never through a symlink; a FIFO is refused, never waited on) into *data
 * (xmalloc'd, one byte spare). 0, or -1 with errno (EFBIG: too large or not a regular file; EIO: a short read). For
 * files that are not package text (chart archives, cache entries), which read_text_file would judge as text. */
int read_file_bytes(const char *path, size_t max, unsigned char **data, size_t *len);
/* Offset of the first NUL-free but invalid UTF-8 sequence in s, or len when all of it is valid UTF-8. */
size_t utf8_check(const unsigned char *s, size_t len);

/* Total bytes read so far by read_text_file, checked against max_total_bytes. */
size_t bytes_read_total(void);
/* Counts input that did not come from a file (a child's output) against max_total_bytes. */
void bytes_read_add(size_t n);
/* Counts objects read (from files and children's output alike) against max_objects: the new total. */
size_t objects_read_add(size_t n);
/* Both counts back to zero: serve-params reads one listing after another in one process, each a run of its own. */
void reads_counted_reset(void);

/* A relative path that stays inside its base: no "..", not absolute, not empty. */
bool safe_relative_path(const char *p);
/* realpath(path) is root_real or below it. */
bool inside(const char *root_real, const char *path);
char *path_join(arena *a, const char *dir, const char *name);
bool is_dir(const char *path);
bool file_exists(const char *path);
/* Removes path and everything under it, never following a symlink; 0 when it is gone. Safe in a forked child (no
 * allocation: path buffers on the stack), so the janitor and the parent share it. A directory a tool made read-only is
 * made writable again first: we created it. */
int fs_remove_tree(const char *path);
/* write(2) until all of it is written (EINTR retried); -1 with errno on failure. */
int write_all(int fd, const void *data, size_t n);

/* A new temporary file in dir that has no name (so nothing is ever left behind), open for reading and writing,
 * close-on-exec: O_TMPFILE, else (a filesystem without it, or with_tmpfile false) a mkostemp file unlinked at once.
 * -1 with errno. */
int unnamed_file(const char *dir, bool with_tmpfile);
/* A new file in the directory dirfd holding data with the given mode, under a fresh name written to tmp: created
 * exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), so a name planted beforehand, symlink or not, is never written
 * through. The caller renames it into place. -1 with errno, and nothing left behind, on failure. */
int temp_file_at(int dirfd, const void *data, size_t n, unsigned mode, char tmp[64]);

/* The byte offset of the first character that is not printable text in s: invalid UTF-8, a C0 or C1 control
 * (tab and line breaks included), DEL, or the line and paragraph separators U+2028 and U+2029. len when none.
 * For values that name things (Argo CD metadata, git refs and URLs), where no reader may see a line break. */
size_t printable_check(const char *s, size_t len);

/* fail()s unless path fits in PATH_MAX, naming its first bytes (display: the path shown, relative if possible). */
int path_fits(const char *path, const char *display);
#endif
