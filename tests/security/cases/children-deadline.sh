# Attack: a chart whose dependencies take init (plugin.yaml's `cmp-generate init`, helm dependency build) most of
# Argo CD's deadline, so that init + render together overrun it and argocd-cmp-server kills us instead of a clean
# error. The `timeout` budget covers both: render gets what init left; init obeys the budget too.
. "$here/children.sh"
helmpkg
# a dependency that is not vendored, so init (and render, before helm template) runs helm dependency build
cat >>"$pkg/charts/web/Chart.yaml" <<'EOF'
dependencies:
  - name: lib
    version: 0.2.0
    repository: file://../lib
EOF
printf 'dependencies:\n- name: lib\n  repository: file://../lib\n  version: 0.2.0\ndigest: sha256:0\ngenerated: "2024-01-01T00:00:00Z"\n' \
  >"$pkg/charts/web/Chart.lock"
# the fake helm: dependency build takes $rec/../dep-seconds the first time, template hangs
fakehelm <<EOF
case "\$1" in
dependency)
  [ -e "\$rec/dep-done" ] && exit 0
  sleep 300 & echo \$! >"\$rec/dep-grandchild.pid"
  sleep \$(cat '$tmp/dep-seconds'); touch "\$rec/dep-done"; exit 0 ;;
template)
  ls -A "\$4" >"\$rec/chart-files"; ls -A "\$PWD" >"\$rec/pkg-files"
  sleep 300 & echo \$! >"\$rec/grandchild.pid"
  exec sleep 301 ;;
esac
EOF

argocd=(ARGOCD_APP_NAME=demo PARAM_TIMEOUT=5 CMP_CHILD_TIMEOUT=60)
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}

  # init takes 3 s of the 5 s budget: render gets the 2 s left, not 5
  echo 3 >"$tmp/dep-seconds"
  s=$(date +%s%N)
  start_cg "$bin" "${argocd[@]}" -- init .; finish
  init_rc=$rc
  (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" TMPDIR="$scratch" HELM_BIN="$tmp/bin/helm" "${argocd[@]}" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$bin" render . >"$tmp/out" 2>"$tmp/err") &
  pid=$!; finish
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  left=$(leftovers 2) # init's children (dep-grandchild.pid) as well as render's
  [ "$init_rc" -ne 0 ] && left="$left init exited $init_rc"
  [ "$ms" -ge 4500 ] && [ "$ms" -le 6500 ] || left="$left init + render took $ms ms for a 5 s budget"
  [ -e "$pkg/.cmp-generate-init-started" ] && left="$left init's record left in the package"
  grep -q cmp-generate-init "$rec/chart-files" "$rec/pkg-files" 2>/dev/null && left="$left helm saw init's record"
  verdict children-init-and-render-share-budget "$tag" 1 'the render went over its time budget of 5 s, [34]\.[0-9]+ s of which init used' "$left"

  # init alone over the budget: killed at the budget with its children, exit 1, one line
  echo 300 >"$tmp/dep-seconds"
  s=$(date +%s%N)
  start_cg "$bin" ARGOCD_APP_NAME=demo PARAM_TIMEOUT=2 -- init .; finish
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  left=$(leftovers 2); [ "$ms" -le 4000 ] || left="$left init took $ms ms"
  verdict children-init-obeys-budget "$tag" 1 'init went over the time budget of 2 s \(parameter timeout, shared by init and render' "$left"

  # init used it all: render fails at once with a clear line instead of starting helm
  echo 2 >"$tmp/dep-seconds"
  start_cg "$bin" ARGOCD_APP_NAME=demo PARAM_TIMEOUT=3 -- init .; finish; init_rc=$rc
  sleep 1.5
  start_cg "$bin" ARGOCD_APP_NAME=demo PARAM_TIMEOUT=3; finish
  left=$(leftovers 0); [ "$init_rc" -eq 0 ] || left="$left init exited $init_rc"
  [ -e "$rec/helm.pid" ] && left="$left helm ran"
  verdict children-init-used-whole-budget "$tag" 1 'init used the whole time budget of 3 s: nothing is left for the render' "$left"

  # outside Argo CD, init writes nothing into the package and render has its whole budget
  echo 0 >"$tmp/dep-seconds"
  start_cg "$bin" PARAM_TIMEOUT=5 -- init .; finish
  left=$(leftovers 0); [ -e "$pkg/.cmp-generate-init-started" ] && left="$left init wrote its record outside Argo CD"
  verdict children-init-outside-argocd-writes-nothing "$tag" 0 '' "$left"
done
