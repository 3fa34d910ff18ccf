# pkg get from a repository the package author controls: symlinks in the fetched tree that would point out of the
# package once written (absolute, climbing from a subdirectory, climbing after going down). Each must be refused,
# with nothing written to the destination or next to it.

newpkg
up=$tmp/up
mkdir -p "$up/pkg/sub/deeper" "$tmp/outside"
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: up\n' >"$up/pkg/Kptfile"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' >"$up/pkg/cm.yaml"
ln -s cm.yaml "$up/pkg/fine.yaml"          # inside: kept
ln -s ../cm.yaml "$up/pkg/sub/fine-up.yaml" # climbs back to the root, no further: kept
commit() { (cd "$up" && git add -A && git -c user.name=t -c user.email=t@t commit -q -m "$1") >/dev/null 2>&1; }
(cd "$up" && git init -q -b main .) >/dev/null 2>&1
commit ok

got() { # NAME REGEX: pkg get must fail with REGEX; nothing in or beside the destination
  local b tag line
  for b in "${bins[@]}"; do
    tag=${b##*:}
    rm -rf "$tmp/dest" "$tmp"/.dest.cmp-generate-* "$tmp/home/.cache"
    line=$(check "$1" 1 "$2" "$tag" -- pkg get "$up/pkg@main" "$tmp/dest")
    if [[ $line == PASS* ]] && { [ -e "$tmp/dest" ] || compgen -G "$tmp/.dest.cmp-generate-*" >/dev/null ||
                                 [ -n "$(ls -A "$tmp/outside")" ]; }; then
      line="FAIL $1 [$tag]: something was written: $(ls -a "$tmp" "$tmp/outside" | tr '\n' ' ')"
    fi
    echo "$line"
  done
}

for b in "${bins[@]}"; do
  tag=${b##*:}; rm -rf "$tmp/dest"
  line=$(check pkg-get-symlinks-inside-kept 0 'pkg get: ' "$tag" -- pkg get "$up/pkg@main" "$tmp/dest")
  if [[ $line == PASS* ]] && ! { [ "$(readlink "$tmp/dest/fine.yaml")" = cm.yaml ] && [ "$(readlink "$tmp/dest/sub/fine-up.yaml")" = ../cm.yaml ]; }; then
    line="FAIL pkg-get-symlinks-inside-kept [$tag]: links not recreated"
  fi
  echo "$line"
done

ln -s "$tmp/outside" "$up/pkg/abs"; commit abs
got pkg-get-symlink-absolute 'symlink "abs" -> ".*/outside" could point outside the package; refusing it'
rm "$up/pkg/abs"; ln -s ../../outside "$up/pkg/sub/climb"; commit climb
got pkg-get-symlink-climbs-from-subdirectory 'symlink "sub/climb" -> "../../outside" could point outside'
rm "$up/pkg/sub/climb"; ln -s deeper/../../../outside "$up/pkg/sub/down-then-up"; commit down-then-up
got pkg-get-symlink-down-then-up 'symlink "sub/down-then-up" -> "deeper/../../../outside" could point outside'
