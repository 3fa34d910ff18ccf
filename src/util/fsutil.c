#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"

static size_t total_read, objects_read;

int parse_env_number(const char *text, bool bytes, unsigned long long min, unsigned long long max,
                     unsigned long long *out)
{
    const char *p = text;
    unsigned long long n = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (n > (ULLONG_MAX - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    if (bytes && *p) {
        int shift = (*p == 'K' || *p == 'k') ? 10 : (*p == 'M' || *p == 'm') ? 20 : (*p == 'G' || *p == 'g') ? 30 : 0;
        if (!shift || n > (ULLONG_MAX >> shift))
            return -1;
        n <<= shift;
        p++;
    }
    if (*p || n < min || n > max)
        return -1;
    *out = n;
    return 0;
}

size_t bytes_read_total(void)
{
    return total_read;
}

void bytes_read_add(size_t n)
{
    total_read += n;
}

size_t objects_read_add(size_t n)
{
    return objects_read += n;
}

void reads_counted_reset(void)
{
    objects_read = 0;
    total_read = 0;
}

/* Returns the offset of the first invalid UTF-8 sequence, or len. Every byte of every input, a chart's whole output
 * included, passes here (twice for a file: read_text_file, then the loader), and YAML is nearly all ASCII: so ASCII
 * runs go 32 and then eight bytes at a time, and only a word with a high bit set is decoded byte by byte. */
size_t utf8_check(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const uint64_t high = UINT64_C(0x8080808080808080); /* unaligned loads; the mask needs no byte order */
        while (len - i >= 32) {
            uint64_t w[4];
            memcpy(w, s + i, 32);
            if ((w[0] | w[1] | w[2] | w[3]) & high)
                break;
            i += 32;
        }
        while (len - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & high)
                break;
            i += 8;
        }
        if (i == len)
            break;
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        uint32_t cp;
        if ((c & 0xe0) == 0xc0)
            n = 2, cp = c & 0x1f;
        else if ((c & 0xf0) == 0xe0)
            n = 3, cp = c & 0x0f;
        else if ((c & 0xf8) == 0xf0)
            n = 4, cp = c & 0x07;
        else
            return i;
        if (n > len - i)
            return i;
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += n;
    }
    return len;
}

static int line_of(const char *s, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++)
        if (s[i] == '\n')
            line++;
    return line;
}

/* A package file opened for reading, checked before a byte is read: a regular file (O_NONBLOCK: a FIFO is refused,
 * never waited on), within max-file-bytes and what is left of max-total-bytes. Its descriptor and *st, or -1 after
 * fail(). */
static int open_package_file(const limits *L, const char *path, const char *display, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return fail(display, 0, "cannot open: %s", strerror(errno));
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return fail(display, 0, "not a regular file");
    }
    if ((size_t)st->st_size > L->max_file_bytes) {
        close(fd);
        return fail(display, 0, "file is %lld bytes, over the limit of %zu (max-file-bytes; raise it with CMP_MAX_FILE_BYTES)",
                    (long long)st->st_size, L->max_file_bytes);
    }
    if (total_read + (size_t)st->st_size > L->max_total_bytes) {
        close(fd);
        return fail(display, 0, "package input is over %zu bytes (max-total-bytes; raise it with CMP_MAX_TOTAL_BYTES)",
                    L->max_total_bytes);
    }
    return fd;
}

int read_text_file(const limits *L, const char *path, const char *display, char **out, size_t *len)
{
    L = limits_or_default(L);
    *out = NULL;
    *len = 0;
    struct stat st;
    int fd = open_package_file(L, path, display, &st);
    if (fd < 0)
        return -1;
    /* room for the file, its NUL and one byte more: the read that finds the end then needs no bigger buffer (with
     * size + 1 it doubled the allocation just to be told EOF); a file that grows meanwhile still grows it */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    const char *reading = mem_reading(display); /* the memory budget's error names the file */
    char *data = xmalloc(cap);
    mem_reading(reading);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > L->max_file_bytes) {
                xfree(data);
                close(fd);
                return fail(display, 0, "file grew over the limit of %zu bytes (max-file-bytes)", L->max_file_bytes);
            }
            cap *= 2;
            data = xrealloc(data, cap);
        }
        ssize_t r = read(fd, data + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            xfree(data);
            close(fd);
            return fail(display, 0, "cannot read: %s", strerror(errno));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    data[n] = 0;
    total_read += n;
    size_t skip = 0;
    if (n >= 3 && (unsigned char)data[0] == 0xef && (unsigned char)data[1] == 0xbb && (unsigned char)data[2] == 0xbf)
        skip = 3;
    const char *nul = memchr(data, 0, n);
    if (nul) {
        int line = line_of(data, (size_t)(nul - data));
        xfree(data);
        return fail(display, line, "file contains a NUL byte: not a text file");
    }
    size_t bad = utf8_check((const unsigned char *)data + skip, n - skip);
    if (bad != n - skip) {
        int line = line_of(data, bad + skip);
        xfree(data);
        return fail(display, line, "invalid UTF-8 (byte offset %zu)", bad + skip);
    }
    if (skip)
        memmove(data, data + skip, n - skip + 1);
    *out = data;
    *len = n - skip;
    return 0;
}

/* The line of byte off of the file open on fd (for a message: read again from the start). */
static int line_at(int fd, size_t off)
{
    char b[8192];
    int line = 1;
    for (size_t at = 0; at < off;) {
        size_t want = off - at < sizeof b ? off - at : sizeof b;
        ssize_t r = pread(fd, b, want, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (ssize_t i = 0; i < r; i++)
            line += b[i] == '\n';
        at += (size_t)r;
    }
    return line;
}

/* read(2) of up to n bytes, again on EINTR: the count, 0 at the end, -1 on an error. */
static ssize_t read_some(int fd, char *to, size_t n)
{
    for (;;) {
        ssize_t r = read(fd, to, n);
        if (r >= 0 || errno != EINTR)
            return r;
    }
}

#define PIECE (64 * 1024)

int read_text_file_pieces(const limits *L, const char *path, const char *display, text_piece_fn fn, void *ud)
{
    L = limits_or_default(L);
    struct stat st;
    int fd = open_package_file(L, path, display, &st);
    if (fd < 0)
        return -1;
    /* First pass: the checks read_text_file makes on the whole text, in the same order (a NUL byte anywhere before
     * invalid UTF-8), piece by piece. A UTF-8 sequence cut by a piece's end is carried into the next piece. */
    char *b = xmalloc(PIECE + 4);
    size_t n = 0, carry = 0, skip = 0, nul = SIZE_MAX, bad = SIZE_MAX;
    int rc = 0;
    for (;;) {
        ssize_t r = read_some(fd, b + carry, PIECE);
        if (r < 0) {
            rc = fail(display, 0, "cannot read: %s", strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        size_t from = n; /* the file offset of b[carry] */
        n += (size_t)r;
        if (n > L->max_file_bytes) {
            rc = fail(display, 0, "file grew over the limit of %zu bytes (max-file-bytes)", L->max_file_bytes);
            goto out;
        }
        const char *z = nul == SIZE_MAX ? memchr(b + carry, 0, (size_t)r) : NULL;
        if (z)
            nul = from + (size_t)(z - (b + carry));
        if (bad != SIZE_MAX)
            continue;
        size_t len = carry + (size_t)r, start = 0, base = from - carry; /* base: the file offset of b[0] */
        if (base == 0 && len >= 3 && (unsigned char)b[0] == 0xef && (unsigned char)b[1] == 0xbb &&
            (unsigned char)b[2] == 0xbf)
            start = skip = 3;
        size_t ok = start + utf8_check((const unsigned char *)b + start, len - start);
        carry = 0;
        if (ok != len && len - ok <= 3) { /* perhaps a sequence the next piece completes */
            carry = len - ok;
            memmove(b, b + ok, carry);
        } else if (ok != len) {
            bad = base + ok;
        }
    }
    if (carry && bad == SIZE_MAX)
        bad = n - carry; /* the file ends inside a sequence */
    if (nul != SIZE_MAX) {
        rc = fail(display, line_at(fd, nul), "file contains a NUL byte: not a text file");
        goto out;
    }
    if (bad != SIZE_MAX) {
        rc = fail(display, line_at(fd, bad), "invalid UTF-8 (byte offset %zu)", bad);
        goto out;
    }
    total_read += n;
    /* Second pass: the same bytes to fn (the byte order mark left out), a piece at a time. */
    size_t again = 0;
    while (rc == 0) {
        ssize_t r = pread(fd, b, PIECE, (off_t)again);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = fail(display, 0, "cannot read: %s", strerror(errno));
            break;
        }
        if (r == 0 || again + (size_t)r > n || memchr(b, 0, (size_t)r)) {
            if (r || again != n)
                rc = fail(display, 0, "the file changed while it was read");
            break;
        }
        size_t s0 = again < skip ? skip - again : 0;
        again += (size_t)r;
        if ((size_t)r > s0)
            rc = fn(ud, b + s0, (size_t)r - s0);
    }
out:
    xfree(b);
    close(fd);
    return rc < 0 ? -1 : 0;
}

bool safe_relative_path(const char *p)
{
    if (!p || !*p || p[0] == '/' || p[0] == '\\')
        return false;
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return false;
        s += n;
        if (*s == '/')
            s++;
    }
    return true;
}

bool inside(const char *root_real, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return false;
    size_t n = strlen(root_real);
    if (strncmp(real, root_real, n) != 0)
        return false;
    return real[n] == 0 || real[n] == '/' || (n == 1 && root_real[0] == '/');
}

char *path_join(arena *a, const char *dir, const char *name)
{
    if (!dir || !*dir)
        return arena_strdup(a, name);
    size_t dl = strlen(dir);
    return arena_printf(a, "%s%s%s", dir, dir[dl - 1] == '/' ? "" : "/", name);
}

bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool file_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int unnamed_file(const char *dir, bool with_tmpfile)
{
    if (!dir || !*dir)
        dir = "/tmp";
    if (with_tmpfile) {
        /* O_EXCL: the file can never be given a name later (linkat), not even by us */
        int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
    }
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/cmp-generate-output.XXXXXX", dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* The name exists between mkostemp and unlink: with every signal that can be blocked held back until it is
     * gone, the deadline's SIGALRM (which _exits), a SIGTERM or a Ctrl-C cannot leave it behind. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int fd = mkostemp(path, O_CLOEXEC);
    int e = errno;
    if (fd >= 0 && unlink(path) < 0) {
        e = errno;
        close(fd);
        fd = -1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

int temp_file_at(int dirfd, const void *data, size_t n, unsigned mode, char tmp[64])
{
    static unsigned counter;
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(tmp, 64, ".cmp-generate-%ld-%u.tmp", (long)getpid(), counter++);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    if (fd < 0)
        return -1;
    int rc = n ? write_all(fd, data, n) : 0;
    if (rc == 0 && mode != 0600)
        rc = fchmod(fd, (mode_t)mode);
    if (close(fd) != 0)
        rc = -1;
    if (rc != 0) {
        int e = errno;
        unlinkat(dirfd, tmp, 0);
        errno = e;
    }
    return rc;
}

size_t printable_check(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t bad = utf8_check(u, len);
    for (size_t i = 0; i < bad; i++) {
        unsigned char c = u[i];
        if (c < 0x20 || c == 0x7f)
            return i;
        if (c == 0xc2 && u[i + 1] < 0xa0) /* U+0080..U+009F, NEL among them */
            return i;
        if (c == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))
            return i;
    }
    return bad;
}

int path_fits(const char *path, const char *display)
{
    size_t n = strlen(path);
    if (n < PATH_MAX)
        return 0;
    const char *d = display && *display ? display : path;
    size_t dl = strlen(d), cut = dl > 60 ? 60 : dl;
    while (cut < dl && ((unsigned char)d[cut] & 0xc0) == 0x80)
        cut++; /* at a character boundary, so the message stays valid UTF-8 */
    return fail(NULL, 0, "the path \"%.*s%s\" is %zu bytes long as an absolute path, over the system's limit of %d "
                "(PATH_MAX); refusing it rather than reading or writing part of it", (int)cut, d, cut < dl ? "..." : "",
                n, PATH_MAX);
}

int fs_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[PATH_MAX];
            if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
                fs_remove_tree(sub);
        }
        closedir(d);
    } else if (errno == EACCES) {
        chmod(path, 0700);
        return fs_remove_tree(path);
    }
    if (rmdir(path) == 0 || errno == ENOENT)
        return 0;
    chmod(path, 0700);
    return -1;
}

int read_file_bytes(const char *path, size_t max, unsigned char **data, size_t *len)
{
    /* O_NONBLOCK: a FIFO planted under the name is refused below, never waited on */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(sb.st_mode) || (size_t)sb.st_size > max) {
        close(fd);
        errno = EFBIG;
        return -1;
    }
    size_t n = (size_t)sb.st_size, got = 0;
    unsigned char *b = xmalloc(n + 1);
    while (got < n) {
        ssize_t k = read(fd, b + got, n - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (got != n) {
        xfree(b);
        errno = EIO;
        return -1;
    }
    *data = b;
    *len = n;
    return 0;
}
