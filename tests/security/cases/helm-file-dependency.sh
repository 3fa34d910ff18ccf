# Attack: a chart dependency with `repository: file://<path>` makes `helm dependency build` (run by `cmp-generate
# init` and by a render whose charts/ does not match Chart.lock) pack the chart at <path> into this one, and helm
# template then renders it: another tenant's chart, anywhere the sidecar can read.
# Defence: every file:// dependency in Chart.yaml, requirements.yaml and their lock files must resolve inside the
# repository (resolved as helm joins it: relative to the chart, cleaned) and is walked like the chart itself.
. "$here/helm-lib.sh"
# another tenant's chart, outside this repository
mkchart "$tmp/other/lib" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other-tenant\ndata:\n  x: %s' "$secret")"

# depchart DIR REPOSITORY [v1]: a chart with one dependency "lib" and a lock made by the real helm, its charts/
# emptied so that helm has to build it again
depchart() {
  mkchart "$1"
  if [ "${3:-}" = v1 ]; then
    printf 'apiVersion: v1\nname: app\nversion: 0.1.0\n' >"$1/Chart.yaml"
    printf 'dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: %s\n' "$2" >"$1/requirements.yaml"
  else
    printf 'dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: %s\n' "$2" >>"$1/Chart.yaml"
  fi
  (cd "$1" && helmx dependency update . >/dev/null 2>&1); rm -rf "$1/charts"
}
built() { [ -e "$pkg/charts/app/charts/lib-0.1.0.tgz" ] && echo "FAIL $1: the dependency outside the repository was built"; rm -rf "$pkg/charts/app/charts"; }

newpkg; depchart "$pkg/charts/app" file://../../../../other/lib; step 'name: app'
check helm-file-dependency-render 1 'app/charts/app/Chart\.yaml:[0-9]+: .*dependencies\[0\]\.repository "file://\.\./\.\./\.\./\.\./other/lib" leads outside the repository'
if leaked; then echo "FAIL helm-file-dependency-render: the chart outside the repository reached the output"; fi
built helm-file-dependency-render
check helm-file-dependency-init 1 'app/charts/app/Chart\.yaml:[0-9]+: init: .*dependencies\[0\]\.repository "file://.*" leads outside the repository' -- init .
built helm-file-dependency-init

newpkg; depchart "$pkg/charts/app" "file://$tmp/other/lib"; step 'name: app'
check helm-file-dependency-absolute 1 'Chart\.yaml:[0-9]+: .*dependencies\[0\]\.repository "file:///.*" leads outside the repository'
built helm-file-dependency-absolute

# a v1 chart: requirements.yaml and requirements.lock
newpkg; depchart "$pkg/charts/app" file://../../../../other/lib v1; step 'name: app'
check helm-file-dependency-requirements 1 'app/charts/app/requirements\.yaml:[0-9]+: .*dependencies\[0\]\.repository "file://.*" leads outside the repository'
if leaked; then echo "FAIL helm-file-dependency-requirements: the chart outside the repository reached the output"; fi
built helm-file-dependency-requirements

# with a Chart.lock, helm builds what the lock lists: it is checked too
newpkg; mkchart "$pkg/charts/app"
printf 'dependencies:\n- name: lib\n  repository: file://../../../../other/lib\n  version: 0.1.0\ndigest: sha256:0\ngenerated: "2024-01-01T00:00:00Z"\n' >"$pkg/charts/app/Chart.lock"
step 'name: app'
check helm-file-dependency-lock 1 'app/charts/app/Chart\.lock:3: .*dependencies\[0\]\.repository "file://.*" leads outside the repository'

# a dependency that is a symlink out of the repository, named by a path inside it
newpkg; mkdir -p "$pkg/charts"; ln -s "$tmp/other/lib" "$pkg/charts/lib"; depchart "$pkg/charts/app" file://../lib; step 'name: app'
check helm-file-dependency-via-symlink 1 'dependencies\[0\]\.repository "file://\.\./lib" leads outside the repository'
built helm-file-dependency-via-symlink

# a dependency inside the repository whose own files lead out is refused by the walk of that chart
newpkg; mkchart "$tmp/repo/platform/lib"; ln -s "$tmp/secret.txt" "$tmp/repo/platform/lib/leak.txt"
depchart "$pkg/charts/app" file://../../../platform/lib; step 'name: app'
check helm-file-dependency-walked 1 'chart "platform/lib": "leak\.txt" is a symlink that leads outside the repository'
built helm-file-dependency-walked
