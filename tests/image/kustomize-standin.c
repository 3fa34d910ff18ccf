/* kustomize-standin: the /app/kustomize of the stand-in for registry.k8s.io/kustomize/kustomize that make test-image
 * builds the Dockerfile with (no registry is reachable, and `make deps` fetches kubectl, whose built-in kustomize is
 * the one the tests run, but no kustomize binary).
 *
 * The file is this program with the pinned kubectl appended, then a trailer: the payload's offset and size and a
 * magic. It copies the payload into a memfd and executes it, turning `kustomize build ARGS` into
 * `kubectl kustomize ARGS` and `kustomize version` into `kubectl version --client`: one file, because the
 * Dockerfile copies only /app/kustomize, and nothing written to disk, because the image's root is read-only.
 * Any other subcommand is refused with a line saying so: the sidecar runs only these two. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

#define MAGIC "CMPKUSTOMIZESTAN"  /* 16 bytes, the trailer's last field */

extern char **environ;

static int die(const char *what)
{
    fprintf(stderr, "kustomize (test-image stand-in): %s: %s\n", what, strerror(errno));
    return 127;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "build") && strcmp(argv[1], "version"))) {
        fprintf(stderr, "kustomize (test-image stand-in): only 'build' and 'version' are supported\n");
        return 2;
    }
    int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (self < 0)
        return die("open /proc/self/exe");
    off_t end = lseek(self, 0, SEEK_END);
    struct { uint64_t off, size; char magic[16]; } t;
    if (end < (off_t)sizeof t || pread(self, &t, sizeof t, end - (off_t)sizeof t) != (ssize_t)sizeof t ||
        memcmp(t.magic, MAGIC, 16) || t.off + t.size + sizeof t != (uint64_t)end) {
        fprintf(stderr, "kustomize (test-image stand-in): no kubectl appended to this file\n");
        return 127;
    }
    int mem = memfd_create("kubectl", MFD_CLOEXEC);
    if (mem < 0)
        return die("memfd_create");
    off_t off = (off_t)t.off;
    for (uint64_t left = t.size; left > 0;) {
        ssize_t n = sendfile(mem, self, &off, left > (1u << 30) ? (1u << 30) : left);
        if (n <= 0)
            return die("copying kubectl");
        left -= (uint64_t)n;
    }
    close(self);

    char *args[argc + 3];
    int n = 0;
    args[n++] = "kubectl";
    if (!strcmp(argv[1], "build")) {
        args[n++] = "kustomize";
    } else {
        args[n++] = "version";
        args[n++] = "--client";
    }
    for (int i = 2; i < argc; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    fexecve(mem, args, environ);
    return die("fexecve kubectl");
}
