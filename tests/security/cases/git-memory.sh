# Attack: memory through libgit2. The package-revision stamp (a parameter the Application's author sets) walks the
# history the author wrote with libgit2, whose allocations went around the render's budget: a HEAD commit with a
# 150 MB message (an 872 KB .git) peaked at 308 MB RSS and exit 0, 120,000 commits of 3.9 KB each filled libgit2's
# object cache (256 MB by default) to 318 MB RSS; in a 256Mi container the kernel's OOM killer ended the render.
# Defence: libgit2 allocates through the budget's counting allocator (GIT_OPT_SET_ALLOCATOR, git/libgit2.c), and its
# object cache and pack windows are kept to a share of the budget: a message past the budget is the budget's one
# line, a long history is walked within it. The sizes are smaller here, and so is the budget (32 MB).
# Besides the verdict, the release build's peak RSS (/usr/bin/time) must stay under 1.5 times the budget.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app STAMP=package-revision CMP_MAX_MEMORY_MB=32"

# gitrepo: $tmp/repo, a git repository whose one commit adds app/ with examples/hello's files; $first is its id.
gitrepo() {
  rm -rf "$tmp/repo"; mkdir -p "$tmp/repo/app"; cp "$root/examples/hello/"* "$tmp/repo/app/"
  pkg=$tmp/repo/app
  (cd "$tmp/repo" && git init -q . && git add . && git -c user.email=a@example.com -c user.name=a commit -qm first) \
    >"$tmp/git.err" 2>&1 && first=$(git -C "$tmp/repo" rev-parse HEAD)
}

# rss_under NAME KB: the release build's peak RSS for the last case's run is under KB.
rss_under() {
  local bin=${bins[0]%:*}
  (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" $argo /usr/bin/time -f '%M' -o "$tmp/rss" \
    timeout 120 "$bin" render . >/dev/null 2>&1)
  local kb; kb=$(tail -1 "$tmp/rss")
  if [ "$kb" -lt "$2" ] 2>/dev/null; then echo "PASS $1-rss"
  else echo "FAIL $1-rss: peak RSS $kb KB, want under $2 KB"; fi
}

# One commit above the package's whose message is 60 MB of 'z' (fast-import: the .git stays small).
if ! gitrepo; then
  echo "FAIL git-memory-setup: $(head -c 300 "$tmp/git.err")"
  return 0
fi
if ! python3 -c "
import sys
m = 'z' * (60 << 20) + '\n'
sys.stdout.write('commit refs/heads/master\ncommitter a <a@b> 1700000000 +0000\ndata %d\n%s\nfrom refs/heads/master^0\n' % (len(m), m))
" | (cd "$tmp/repo" && git fast-import --quiet) >"$tmp/git.err" 2>&1; then
  echo "FAIL git-memory-setup-message: $(head -c 300 "$tmp/git.err")"
else
  CASE_ENV="$argo" check git-memory-commit-message 1 '^cmp-generate: [^:]*: the render needs more than 32 MB of memory \(CMP_MAX_MEMORY_MB=32; the operator raises it in the sidecar.s environment\)$'
  rss_under git-memory-commit-message $((48 * 1024))
fi

# 30,000 empty commits above the package's, 3.9 KB of message each (117 MB of objects the cache would keep):
# walked within the budget, and the stamp is the commit that added app/.
gitrepo
if ! python3 -c "
import sys
m = 'y' * 3900 + '\n'
for i in range(30000):
    sys.stdout.write('commit refs/heads/master\ncommitter a <a@b> %d +0000\ndata %d\n%s\n' % (1700000000 + i, len(m), m))
    if i == 0:
        sys.stdout.write('from refs/heads/master^0\n')
" | (cd "$tmp/repo" && git fast-import --quiet) >"$tmp/git.err" 2>&1; then
  echo "FAIL git-memory-setup-history: $(head -c 300 "$tmp/git.err")"
else
  CASE_ENV="$argo" check git-memory-long-history 0 "^    cmp-generate/package-revision: \"?$first\"?\$"
  rss_under git-memory-long-history $((48 * 1024))
fi
