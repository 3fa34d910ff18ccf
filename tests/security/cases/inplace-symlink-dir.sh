# render --in-place through a directory symlink: the author plants a link to a directory outside the package and
# has a function name a file below it (upsert-resource's target-path), with directories still to be made, so that
# the write (or the mkdir -p before it) lands outside. Each attack must be refused with the link named, and leave
# every file, inside the package and out, exactly as it was.

# Everything under $tmp but the run's own output files: names, types, sizes, modes, link targets and contents.
tree_state() {
  (cd "$tmp" && find repo outside -printf '%p %y %s %m %l\n' 2>/dev/null | sort
   find repo outside -type f -exec md5sum {} + 2>/dev/null | sort)
}

# upsert-resource writes a new ConfigMap to TARGET (its target-path annotation).
upsert_pkg() {
  newpkg
  rm -rf "$tmp/outside"; mkdir -p "$tmp/outside/sub"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\ndata:\n  token: s3cr3t\n' >"$tmp/outside/sub/cm.yaml"
  printf 'pipeline:\n  mutators:\n    - image: upsert-resource\n      configPath: u.yaml\n' >>"$pkg/Kptfile"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n  annotations:\n    config.kubernetes.io/target-path: %s\n' \
    "$1" >"$pkg/u.yaml"
}

# refused NAME REGEX SETUP: for each build, a fresh package made by SETUP, then render --in-place must fail with
# REGEX and change nothing anywhere.
refused() {
  local name=$1 pat=$2 setup=$3 b tag before line
  for b in "${bins[@]}"; do
    tag=${b##*:}
    eval "$setup"
    before=$(tree_state)
    line=$(check "$name" 1 "$pat" "$tag" -- render --in-place .)
    if [[ $line == PASS* ]] && [ "$before" != "$(tree_state)" ]; then
      line="FAIL $name [$tag]: files changed: $(diff <(echo "$before") <(tree_state) | head -c 300 | tr '\n' ' ')"
    fi
    echo "$line"
  done
}

# k20: mkdir -p through the link would create outside/made/by/render before any check
refused inplace-symlink-dir-mkdir-through-link '"linkdir" is a symlink' \
  'upsert_pkg linkdir/made/by/render/new.yaml; ln -s ../../outside "$pkg/linkdir"'
# the file itself, straight into the linked directory
refused inplace-symlink-dir-write-through-link '"linkdir" is a symlink' \
  'upsert_pkg linkdir/new.yaml; ln -s ../../outside "$pkg/linkdir"'
# an absolute link, deeper in the path, below real directories the author made
refused inplace-symlink-dir-absolute-link-deep '"a/b/c" is a symlink' \
  'upsert_pkg a/b/c/d/new.yaml; mkdir -p "$pkg/a/b"; ln -s "$tmp/outside/sub" "$pkg/a/b/c"'
# a link that stays inside the package is refused too: in-place writes follow no link at all
refused inplace-symlink-dir-link-inside '"alias" is a symlink' \
  'upsert_pkg alias/new.yaml; mkdir -p "$pkg/real"; ln -s real "$pkg/alias"'
# a dangling directory link: mkdir would otherwise report EEXIST and the open would follow it
refused inplace-symlink-dir-dangling-link '"gone" is a symlink' \
  'upsert_pkg gone/x/new.yaml; ln -s ../../outside/not-yet "$pkg/gone"'
# the second file fails: the first, already in its temporary, and the directories made for it go again
refused inplace-symlink-dir-all-or-nothing '"linkdir" is a symlink' \
  'upsert_pkg linkdir/new.yaml; ln -s ../../outside "$pkg/linkdir"
   printf "    - image: upsert-resource\n      configPath: u2.yaml\n" >>"$pkg/Kptfile"
   printf "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  annotations:\n    config.kubernetes.io/target-path: aaa/first.yaml\n" >"$pkg/u2.yaml"'

# a legitimate target-path into new directories still works: the file is private (kpt writes 0600), no temporary
# is left, and an existing file keeps its mode
for b in "${bins[@]}"; do
  tag=${b##*:}
  upsert_pkg made/here/new.yaml
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n' >"$pkg/old.yaml"; chmod 640 "$pkg/old.yaml"
  line=$(check inplace-symlink-dir-legitimate-write-works 0 '' "$tag" -- render --in-place .)
  if [[ $line == PASS* ]] && ! { [ -f "$pkg/made/here/new.yaml" ] && grep -q 'name: new' "$pkg/made/here/new.yaml" &&
      [ "$(stat -c %a "$pkg/made/here/new.yaml")" = 600 ] && [ "$(stat -c %a "$pkg/old.yaml")" = 640 ] &&
      [ -z "$(find "$pkg" -name '.cmp-generate-*')" ]; }; then
    line="FAIL inplace-symlink-dir-legitimate-write-works [$tag]: $(cd "$pkg" && find . -printf '%p %m; ' | head -c 400)"
  fi
  echo "$line"
done
