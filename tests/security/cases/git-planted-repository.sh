# Attack: make the package-revision stamp (a parameter the Application's author sets) read a git repository of the
# author's making. git cannot commit a path named .git, but it can commit HEAD, objects/ and refs/ at the
# repository's top, and a file named config: opened at the root, libgit2 took that for a bare repository, with the
# author's config. core.worktree made it a work tree that stamped the author's history; include.path made libgit2
# read any file of the sidecar as config, and whether the stamp came out said whether that file existed (a broken
# config fails the open); objects/info/alternates reaches into other checkouts. Operators who leave .git out of
# the plugin tar (README: Install) are the ones exposed: there is no .git of Argo CD's to find first.
# Defence: under Argo CD only <repository root>/.git, a real directory, is opened; anything else means "not
# knowable" and the stamp is left out.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app STAMP=package-revision"
# a real history, whose .git parts are then laid out at the top of the repository as committed files would be
mkdir -p "$tmp/src/app"
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\n' >"$tmp/src/app/Kptfile"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$tmp/src/app/cm.yaml"
if ! (cd "$tmp/src" && git init -q . && git add . && git -c user.email=a@example.com -c user.name=a commit -qm x) \
    >"$tmp/git.err" 2>&1; then
  echo "FAIL git-planted-repository-setup: $(head -c 300 "$tmp/git.err")"
else
  newpkg; cp "$tmp/src/app/"* "$pkg/"
  cp -r "$tmp/src/.git/HEAD" "$tmp/src/.git/objects" "$tmp/src/.git/refs" "$tmp/repo/"
  : >"$tmp/exists"
  for inc in "$tmp/exists" "$tmp/no-such-file"; do
    name=git-planted-repository-include-$(basename "$inc")
    printf '[core]\n\tbare = false\n\tworktree = .\n[include]\n\tpath = %s\n' "$inc" >"$tmp/repo/config"
    CASE_ENV="$argo" check "$name" 0 '^  name: mine$'
    if grep -q 'package-revision' "$out"; then echo "FAIL $name-no-stamp: the planted repository was read: $(grep package-revision "$out")"
    else echo "PASS $name-no-stamp"; fi
  done
  # Argo CD's own .git (a directory) is still read
  rm -rf "$tmp/repo/HEAD" "$tmp/repo/objects" "$tmp/repo/refs" "$tmp/repo/config"; cp -r "$tmp/src/.git" "$tmp/repo/.git"
  CASE_ENV="$argo" check git-planted-repository-real-git-read 0 '^    cmp-generate/package-revision: "?[0-9a-f]{40}"?$'
fi
