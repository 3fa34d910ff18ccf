/* render/spool.h: the output is the same bytes whatever the budget (all in memory, through the file, or lost and
 * only counted), and its temporary file never has a name in the directory, O_TMPFILE or not. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "render/spool.h"
#include "util/fsutil.h"

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* document i: i % 7 lines of a few bytes, every tenth one far over any budget below; the last ones small, so
 * that something is left in memory at the end */
static void document(buf *b, int i)
{
    buf_printf(b, "---\nname: d%d\n", i);
    for (int k = 0; k < i % 7; k++)
        buf_printf(b, "k%d: v%d\n", k, i);
    if (i % 10 == 9)
        for (int k = 0; k < 1000; k++)
            buf_puts(b, "0123456789");
}

static char *slurp_fd(int fd, size_t *len)
{
    off_t n = lseek(fd, 0, SEEK_END);
    char *p = malloc((size_t)n + 1);
    *len = pread(fd, p, (size_t)n, 0) == n ? (size_t)n : (size_t)-1;
    return p;
}

TEST(spool_same_bytes_whatever_the_budget)
{
    buf want = {0};
    for (int i = 0; i < 63; i++)
        document(&want, i);
    char dir[] = "/tmp/cmp-unit-spool.XXXXXX";
    CHECK(mkdtemp(dir));
    static const size_t budgets[] = {0, 1, 7, 100, 4096, 1 << 20};
    for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++) {
        for (int append = 0; append < 2; append++) {
            spool s;
            spool_init(&s, dir, budgets[b]);
            for (int i = 0; i < 63; i++) {
                document(spool_buf(&s), i);
                spool_settle(&s);
                CHECK(entries(dir) == 0);
            }
            spool_finish(&s);
            CHECK(!s.lost && s.total == want.len);
            CHECK((s.file >= 0) == (want.len > budgets[b]));
            char path[64];
            snprintf(path, sizeof path, "%s/out", dir);
            /* O_APPEND: sendfile refuses it, the copy goes through memory */
            int out = open(path, O_RDWR | O_CREAT | O_TRUNC | (append ? O_APPEND : 0), 0600);
            CHECK(out >= 0);
            CHECK(spool_write(&s, out) == 0);
            size_t len;
            char *got = slurp_fd(out, &len);
            close(out);
            unlink(path);
            int same = len == want.len && !memcmp(got, want.data, len);
            free(got);
            spool_free(&s);
            CHECK(same);
            CHECK(entries(dir) == 0);
        }
    }
    rmdir(dir);
    buf_free(&want);
}

TEST(spool_without_a_directory_only_counts)
{
    spool s;
    spool_init(&s, "/nonexistent-cmp-unit-spool", 10);
    size_t want = 0;
    for (int i = 0; i < 30; i++) {
        buf *b = spool_buf(&s);
        size_t before = b->len;
        document(b, i);
        want += b->len - before;
        spool_settle(&s);
    }
    spool_finish(&s);
    CHECK(s.lost && s.total == want && s.file < 0 && s.mem.len == 0);
    spool_free(&s);
}

TEST(spool_tempfile_has_no_name_either_way)
{
    char dir[] = "/tmp/cmp-unit-spool.XXXXXX";
    CHECK(mkdtemp(dir));
    for (int with_tmpfile = 0; with_tmpfile < 2; with_tmpfile++) {
        int fd = unnamed_file(dir, with_tmpfile);
        CHECK(fd >= 0);
        CHECK(entries(dir) == 0);
        struct stat st;
        CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0 && (st.st_mode & 0777) == 0600);
        CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
        CHECK(write(fd, "abc", 3) == 3);
        char got[4] = {0};
        CHECK(pread(fd, got, 3, 0) == 3 && !strcmp(got, "abc"));
        close(fd);
    }
    CHECK(unnamed_file("/nonexistent-cmp-unit-spool", false) < 0);
    CHECK(rmdir(dir) == 0);
}
