/* temp_file_at: the temporary is created exclusively, so names planted in advance (symlinks out, dangling links)
 * are stepped over, never written through. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/fsutil.h"

static int slurp(const char *path, char *out, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    out[n < 0 ? 0 : n] = 0;
    return (int)n;
}

TEST(temp_file_steps_over_planted_symlinks)
{
    char dir[] = "/tmp/cmp-unit-safe-write.XXXXXX";
    CHECK(mkdtemp(dir));
    char outside[256], path[512], got[64];
    snprintf(outside, sizeof outside, "%s/outside", dir);
    int fd = open(outside, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && write(fd, "keep", 4) == 4 && close(fd) == 0);
    snprintf(path, sizeof path, "%s/pkg", dir);
    CHECK(mkdir(path, 0755) == 0);
    int dfd = open(path, O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);

    char tmp[64];
    CHECK(temp_file_at(dfd, "first", 5, 0600, tmp) == 0);
    long pid;
    unsigned n;
    CHECK(sscanf(tmp, ".cmp-generate-%ld-%u.tmp", &pid, &n) == 2 && pid == (long)getpid());
    /* the next names it would try: links to the outside file and a dangling link out */
    for (unsigned k = n + 1; k <= n + 4; k++) {
        char name[64], target[300];
        snprintf(name, sizeof name, ".cmp-generate-%ld-%u.tmp", pid, k);
        snprintf(target, sizeof target, k % 2 ? "%s" : "%s-created", outside);
        CHECK(symlinkat(target, dfd, name) == 0);
    }
    char tmp2[64];
    CHECK(temp_file_at(dfd, "second", 6, 0640, tmp2) == 0);
    CHECK(slurp(outside, got, sizeof got) == 4);
    CHECK_STR(got, "keep");
    char created[300];
    snprintf(created, sizeof created, "%s-created", outside);
    CHECK(access(created, F_OK) != 0);
    struct stat st;
    CHECK(fstatat(dfd, tmp2, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640);
    snprintf(path, sizeof path, "%s/pkg/%s", dir, tmp2);
    CHECK(slurp(path, got, sizeof got) == 6);
    CHECK_STR(got, "second");
    close(dfd);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}
