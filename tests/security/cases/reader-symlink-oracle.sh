# Attack: learn what exists on the sidecar without reading it. A resource-named symlink out of the package is
# refused, but the package reader used to stat() the target first: "broken symlink" when nothing is there,
# "points outside the package" when a file is, and a clean render (the link skipped as a directory) when a directory
# is. Three answers for one push: an oracle for a mounted Secret's keys, another Application's checkout, a tool's
# cache. Defence: a symlink is resolved one step at a time from the package and refused as soon as it leaves it,
# before anything outside is looked at; every target outside gets the same line.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app"
mkdir -p "$tmp/outside/dir"
printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: other\nstringData:\n  k: TOPSECRET-ORACLE\n' >"$tmp/outside/file.yaml"

oracle() { # NAME TARGET: the link x.yaml -> TARGET must get the one refusal, whatever TARGET is
  newpkg
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/cm.yaml"
  ln -s "$2" "$pkg/x.yaml"
  CASE_ENV="$argo" check "$1" 1 '^cmp-generate: x\.yaml: read: symlink points outside the package; refusing to read it$'
  if grep -q TOPSECRET-ORACLE "$out" "$err"; then echo "FAIL $1-content: the file outside reached the output"; fi
}
oracle reader-symlink-outside-file "$tmp/outside/file.yaml"
oracle reader-symlink-outside-missing "$tmp/outside/no-such-file.yaml"
oracle reader-symlink-outside-directory "$tmp/outside/dir"
oracle reader-symlink-outside-relative ../../outside/no-such-file.yaml
# through a link inside the package that itself leads out
newpkg; ln -s "$tmp/outside" "$pkg/up"; ln -s up/no-such-file.yaml "$pkg/x.yaml"
CASE_ENV="$argo" check reader-symlink-outside-chained 1 'x\.yaml: read: symlink points outside the package'

# inside the package: a link to a file is read, a link to nothing is broken (that answer is about the package only)
newpkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/cm.yml"
ln -s cm.yml "$pkg/x.yaml"
CASE_ENV="$argo" check reader-symlink-inside-read 0 '^  name: mine$'
rm "$pkg/x.yaml"; ln -s no-such-file.yaml "$pkg/x.yaml"
CASE_ENV="$argo" check reader-symlink-inside-broken 1 '^cmp-generate: x\.yaml: read: broken symlink$'
