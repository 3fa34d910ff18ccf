/* `cmp-generate pkg get`: a package fetched from git with its upstream recorded, as kpt pkg get. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "git/git.h"
#include "settings/host.h"
#include "util/arena.h"
#include "util/diag.h"

static const char pkg_usage[] =
    "usage: cmp-generate pkg get REPO[/DIR][@REF] [DEST]\n"
    "       cmp-generate pkg get REPO.git[/DIR][@REF] [DEST]\n"
    "\n"
    "Fetches DIR (default: the whole repository) of a git repository at REF (a branch, tag, commit SHA or\n"
    "abbreviated SHA; default: the remote's default branch) into DEST, a new or empty directory (default: the\n"
    "last component of DIR or of REPO), and records upstream and upstreamLock in DEST/Kptfile as kpt pkg get\n"
    "does. REPO is a local path, a file:// URL, or an https:// (or ssh) URL; URL//DIR also separates the two.\n"
    "A tag DIR/REF (kpt's per-package versions) wins over REF. Fetches are cached in\n"
    "$XDG_CACHE_HOME/cmp-generate/git (else $TMPDIR/cmp-generate-<uid>/git).\n";

/* The `pkg` command: argv holds what follows "pkg" (argv[0] = "get"). Returns the exit status: 0, 1 (error) or 2
 * (usage). */
int cmd_pkg(int argc, char **argv)
{
    if (argc < 1)
        return cmd_usage_error("pkg", "%s", "a subcommand is needed: get");
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help")) {
        fputs(pkg_usage, stdout);
        return 0;
    }
    if (strcmp(argv[0], "get"))
        return cmd_usage_error("pkg", "unknown subcommand \"%s\" (supported: get)", argv[0]);
    const char *pos[2];
    int npos = 0;
    bool opts = true;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (opts && !strcmp(s, "--")) {
            opts = false;
        } else if (opts && (!strcmp(s, "--help") || !strcmp(s, "-h"))) {
            fputs(pkg_usage, stdout);
            return 0;
        } else if (opts && s[0] == '-' && s[1]) {
            return cmd_usage_error("pkg", "unknown option %s", s);
        } else if (npos == 2) {
            return cmd_usage_error("pkg", "unexpected argument \"%s\"", s);
        } else {
            pos[npos++] = s;
        }
    }
    if (npos == 0)
        return cmd_usage_error("pkg", "%s", "get needs REPO[/DIR][@REF] and DEST");
    diag_set_step("pkg get");
    arena *a = arena_new();
    pkg_get_result r;
    int rc = 0;
    gitsrc_env genv;
    host_git_env(&genv);
    if (pkg_get(a, &genv, pos[0], npos > 1 ? pos[1] : NULL, &r) < 0) {
        cmd_say_error("");
        rc = 1;
    } else {
        cmd_say_warnings();
        cmd_say("pkg get: ", arena_printf(a, "%s%s@%s (%.12s) -> %s", r.repo, r.directory, r.ref, r.commit, r.dest));
    }
    arena_free(a);
    return rc;
}
