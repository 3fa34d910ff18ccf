#include "util/path.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool has_prefix_dir(const char *path, const char *root, size_t rl)
{
    return !strncmp(path, root, rl) && (path[rl] == '/' || path[rl] == 0);
}

bool path_under(const char *path, const char *root, size_t rl)
{
    return has_prefix_dir(path, root, rl);
}

confined resolve_beneath(const char *root, const char *path, char out[PATH_MAX])
{
    size_t rl = strlen(root);
    if (rl == 1 && root[0] == '/')
        rl = 0;
    if (rl >= PATH_MAX || path[0] != '/' || !has_prefix_dir(path, root, rl))
        return CONFINED_OUTSIDE;
    /* cur: the real directory reached so far (root or below); todo: the components still to walk */
    char cur[PATH_MAX], todo[2 * PATH_MAX], next_todo[2 * PATH_MAX];
    memcpy(cur, root, rl);
    cur[rl] = 0;
    size_t cl = rl;
    if ((size_t)snprintf(todo, sizeof todo, "%s", path + rl) >= sizeof todo)
        return CONFINED_MISSING;
    const char *p = todo;
    int links = 0;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, "/");
        const char *rest = p + n;
        if (n == 1 && p[0] == '.') {
            p = rest;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (cl == rl)
                return CONFINED_OUTSIDE; /* never look above the root, not even to say what is there */
            while (cl > rl && cur[cl - 1] != '/')
                cl--;
            cur[--cl] = 0;
            p = rest;
            continue;
        }
        if (cl + 1 + n >= PATH_MAX)
            return CONFINED_MISSING;
        cur[cl] = '/';
        memcpy(cur + cl + 1, p, n);
        cur[cl + 1 + n] = 0;
        struct stat st;
        if (lstat(cur, &st) != 0)
            return CONFINED_MISSING;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t t = ++links > 40 ? -1 : readlink(cur, target, sizeof target - 1);
            if (t <= 0)
                return CONFINED_MISSING; /* a loop, as the kernel's ELOOP */
            target[t] = 0;
            cur[cl] = 0; /* a relative target starts from the link's directory */
            const char *from = target;
            if (target[0] == '/') {
                if (!has_prefix_dir(target, root, rl))
                    return CONFINED_OUTSIDE;
                cl = rl;
                cur[cl] = 0;
                from = target + rl;
            }
            if ((size_t)snprintf(next_todo, sizeof next_todo, "%s/%s", from, rest) >= sizeof next_todo)
                return CONFINED_MISSING;
            memcpy(todo, next_todo, strlen(next_todo) + 1);
            p = todo;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            const char *q = rest;
            while (*q == '/')
                q++;
            if (*q)
                return CONFINED_MISSING; /* ENOTDIR */
        }
        cl += 1 + n;
        p = rest;
    }
    if (cl == 0)
        memcpy(out, "/", 2);
    else
        memcpy(out, cur, cl + 1);
    return CONFINED_OK;
}

char *clean_path(arena *a, const char *path)
{
    size_t len = strlen(path);
    char *out = arena_alloc(a, len + 2);
    bool abs = path[0] == '/';
    size_t o = 0, floor = 0; /* floor: leading "../" of a relative path cannot be removed */
    if (abs)
        out[o++] = '/', floor = 1;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (!n)
            break;
        if (n == 1 && p[0] == '.') {
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (o > floor) {
                while (o > floor && out[o - 1] != '/')
                    o--;
                if (o > floor)
                    o--;
            } else if (!abs) {
                if (o)
                    out[o++] = '/';
                memcpy(out + o, "..", 2);
                o += 2;
                floor = o;
            }
        } else {
            if (o && out[o - 1] != '/')
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
    }
    if (!o)
        out[o++] = '.';
    out[o] = 0;
    return out;
}
