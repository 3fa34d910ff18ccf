# Attack: a chart that makes helm eat the sidecar where helm is not our child. With the operator's
# CMP_KUSTOMIZE_ENABLE_HELM=true, kustomize runs our helm guard, which execs helm: a grandchild. The memory watchdog
# read the resident memory of the child alone (kustomize), and Go's heap gets past RLIMIT_DATA (util/child.c), so a
# template's one huge string (700 MB) ran to the end against a 143 MB share: exit 0 at 710 MB RSS, and in a 256Mi
# container the OOM killer's SIGKILL, reported as "signal: killed". The same template through render-helm-chart was
# stopped (children-memory-one-allocation).
# Defence: the watchdog sums the resident memory of the child's whole tree (everything under its supervisor) and
# kills the tree past the share, with the error that names it.
# The release build only: an ASan build cannot run as the helm guard under RLIMIT_DATA (lib.sh, asan_guard_env),
# so its runs have no memory limit to watch. The verdict is the error line, not RSS (which depends on the machine's
# load: the watchdog looks every 50 ms, every 10 ms once the tree is past half its share).
. "$here/children.sh"
realhelm=$tools/helm

newpkg
cat >"$pkg/Kptfile" <<'EOF'
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: attack
pipeline:
  mutators:
    - image: kustomize-build
      configMap:
        path: ov
EOF
mkdir -p "$pkg/ov/charts/web/templates"
printf 'helmCharts:\n  - name: web\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
printf 'apiVersion: v2\nname: web\nversion: 0.1.0\n' >"$pkg/ov/charts/web/Chart.yaml"
: >"$pkg/ov/charts/web/values.yaml"
printf '{{- $x := repeat 700000000 "x" }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{{ len $x }}\n' \
  >"$pkg/ov/charts/web/templates/cm.yaml"
bin=${bins[0]%:*} tag=${bins[0]##*:}
# the Components' 256Mi container: the budget is 192 MB, kustomize's share (and so its tree's) 3/4 of what is free
in_container memory.max 268435456
start_cg "$bin" ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app HELM_BIN="$realhelm" CMP_KUSTOMIZE_ENABLE_HELM=true \
  CMP_CHILD_TIMEOUT=120; finish 130
wrap=()
verdict children-grandchild-memory "$tag" 1 'kustomize[^:]*ran out of memory: a child may use 14[0-9] MB, 3/4 of what the render.s memory budget of 192 MB had free when it started \(CMP_MAX_MEMORY_MB unset: 3/4 of the sidecar container.s 256 MiB memory limit' "$(leftovers 0)"

# a chart that fits its share still renders through the same tree
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\n' >"$pkg/ov/charts/web/templates/cm.yaml"
in_container memory.max 268435456
start_cg "$bin" ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app HELM_BIN="$realhelm" CMP_KUSTOMIZE_ENABLE_HELM=true; finish 60
wrap=()
verdict children-grandchild-memory-fits "$tag" 0 '^  name: small$' "$(leftovers 0)"
