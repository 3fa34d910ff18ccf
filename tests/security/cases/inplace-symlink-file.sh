# render --in-place through a file symlink: the author plants a link where the render will write a file, pointing
# out of the package (to a file, or dangling so that the write would create it), and hides the link from the reader
# with .krmignore or a name the reader skips. The write must be refused with the file named, and nothing may
# change anywhere.

tree_state() {
  (cd "$tmp" && find repo outside -printf '%p %y %s %m %l\n' 2>/dev/null | sort
   find repo outside -type f -exec md5sum {} + 2>/dev/null | sort)
}

upsert_pkg() {
  newpkg
  rm -rf "$tmp/outside"; mkdir -p "$tmp/outside"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\ndata:\n  token: s3cr3t\n' >"$tmp/outside/cm.yaml"
  printf 'pipeline:\n  mutators:\n    - image: upsert-resource\n      configPath: u.yaml\n' >>"$pkg/Kptfile"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n  annotations:\n    config.kubernetes.io/target-path: %s\n' \
    "$1" >"$pkg/u.yaml"
}

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

# a link to a file outside, ignored by the reader, named as the new object's file
refused inplace-symlink-file-to-outside-file '"evil.yaml" is a symlink' \
  'upsert_pkg evil.yaml; ln -s ../../outside/cm.yaml "$pkg/evil.yaml"; echo evil.yaml >"$pkg/.krmignore"'
# a dangling link: fopen("w") would create the file it points to
refused inplace-symlink-file-dangling-creates-outside '"made.yaml" is a symlink' \
  'upsert_pkg made.yaml; ln -s ../../outside/created.yaml "$pkg/made.yaml"; echo made.yaml >"$pkg/.krmignore"'
# an absolute link in a subdirectory
refused inplace-symlink-file-absolute-in-subdir '"sub/x.yaml" is a symlink' \
  'upsert_pkg sub/x.yaml; mkdir -p "$pkg/sub"; ln -s "$tmp/outside/cm.yaml" "$pkg/sub/x.yaml"; echo sub/x.yaml >"$pkg/.krmignore"'
# a link to a file that is inside the package: still never written through (the link would silently change what
# another file holds)
refused inplace-symlink-file-to-inside-file '"alias.yaml" is a symlink' \
  'upsert_pkg alias.yaml; printf "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: real\n" >"$pkg/real.yaml"
   ln -s real.yaml "$pkg/alias.yaml"; echo alias.yaml >"$pkg/.krmignore"'
