/* Reading package files safely: size limits, containment inside the package root, and text checks. */
#ifndef CMP_UTIL_FSUTIL_H
#define CMP_UTIL_FSUTIL_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

typedef struct limits {
    size_t max_file_bytes;
    size_t max_total_bytes;
    size_t max_objects;
    size_t max_output_bytes;
} limits;

extern limits cmp_limits;
/* Reads CMP_MAX_FILE_BYTES and friends from the environment. */
void limits_from_env(void);

/* Reads a whole file (after checking it stays inside root_real when it is a symlink) into a malloc'd buffer.
 * Strips a UTF-8 byte order mark, rejects NUL bytes and invalid UTF-8. display names the file in errors. */
int read_text_file(const char *path, const char *display, char **out, size_t *len);
/* Offset of the first NUL-free but invalid UTF-8 sequence in s, or len when all of it is valid UTF-8. */
size_t utf8_check(const unsigned char *s, size_t len);

/* Total bytes read so far by read_text_file, checked against max_total_bytes. */
size_t bytes_read_total(void);
/* Counts input that did not come from a file (a child's output) against max_total_bytes. */
void bytes_read_add(size_t n);

/* A relative path that stays inside its base: no "..", not absolute, not empty. */
bool safe_relative_path(const char *p);
/* realpath(path) is root_real or below it. */
bool inside(const char *root_real, const char *path);
char *path_join(arena *a, const char *dir, const char *name);
bool is_dir(const char *path);
bool file_exists(const char *path);
/* write(2) until all of it is written (EINTR retried); -1 with errno on failure. */
int write_all(int fd, const void *data, size_t n);
#endif
