#define _GNU_SOURCE /* sendfile */
#include "render/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"

void spool_init(spool *s, const char *tmpdir, size_t budget)
{
    *s = (spool){.file = -1, .budget = budget, .tmpdir = tmpdir};
}

buf *spool_buf(spool *s)
{
    s->mark = s->mem.len;
    return &s->mem;
}

/* No file, or a file that cannot take more (a full disk): from here on the bytes are only counted. */
static void lose(spool *s)
{
    if (s->file >= 0)
        close(s->file);
    s->file = -1;
    s->lost = true;
    s->mem.len = 0;
}

/* Memory into the file, made on first use. Memory is then empty: the budget is all the memory the spool ever
 * holds, beside the one document that took it over. */
static void flush(spool *s)
{
    if (s->file < 0)
        s->file = unnamed_file(s->tmpdir, true);
    if (s->file < 0 || write_all(s->file, s->mem.data, s->mem.len) < 0)
        lose(s);
    s->mem.len = 0;
}

void spool_settle(spool *s)
{
    size_t added = s->mem.len - s->mark;
    if (added > s->largest)
        s->largest = added;
    s->total += added;
    if (s->lost)
        s->mem.len = 0;
    else if (s->mem.len > s->budget)
        flush(s);
}

void spool_finish(spool *s)
{
    if (s->file >= 0 && s->mem.len)
        flush(s);
}

/* sendfile cannot write to a descriptor opened with O_APPEND (`>> file`), nor on some very old kernels: then
 * pread and write, through memory, a budget at a time. */
static int copy_file(spool *s, int fd)
{
    off_t end = lseek(s->file, 0, SEEK_END), off = 0;
    if (end < 0)
        return -1;
    bool send = true;
    while (off < end) {
        size_t want = (size_t)(end - off);
        ssize_t n;
        if (send) {
            n = sendfile(fd, s->file, &off, want > (1u << 30) ? 1u << 30 : want);
            if (n < 0 && (errno == EINVAL || errno == ENOSYS)) {
                send = false;
                continue;
            }
        } else {
            size_t piece = s->budget < 4096 ? 4096 : s->budget;
            buf_reserve(&s->mem, piece);
            n = pread(s->file, s->mem.data, want > piece ? piece : want, off);
            if (n > 0 && write_all(fd, s->mem.data, (size_t)n) < 0)
                return -1;
            if (n > 0)
                off += n;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* the file is shorter than it was a moment ago */
            return -1;
        }
    }
    return 0;
}

int spool_write(spool *s, int fd)
{
    if (s->file >= 0)
        return copy_file(s, fd);
    return s->mem.len ? write_all(fd, s->mem.data, s->mem.len) : 0;
}

void spool_free(spool *s)
{
    if (s->file >= 0)
        close(s->file);
    s->file = -1;
    buf_free(&s->mem);
}
