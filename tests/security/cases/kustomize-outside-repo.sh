# Attack: read files the sidecar can read through kustomize. kustomize takes a directory base from anywhere on
# disk, follows symlinks, and with LoadRestrictionsNone loads any file; in the cmp-server's work directory the
# repositories of other applications are unpacked next to ours while they render ($tmp/other-app here).
# Rule: the load restrictor is the operator's (CMP_KUSTOMIZE_LOAD_RESTRICTOR, default LoadRestrictionsRootOnly);
# every path of every kustomization reached resolves, symlinks followed, inside the repository root, whatever the
# restrictor. Each attack is first shown to work with kubectl kustomize alone.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_NAMESPACE=shop ARGOCD_APP_SOURCE_PATH=app"
none="CMP_KUSTOMIZE_LOAD_RESTRICTOR=LoadRestrictionsNone"

# The package at $tmp/repo/app with a kustomize-build step over ov/ (extra configMap lines as arguments), and the
# neighbour's repository with a secret, a kustomization of it, a password file and a patch.
kpkg() {
  newpkg
  { printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n'
    printf '    - image: kustomize-build\n      configMap:\n        path: ov\n'
    for l in "$@"; do printf '        %s\n' "$l"; done; } >"$pkg/Kptfile"
  mkdir -p "$pkg/ov" "$tmp/other-app"
  printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: TOPSECRET-KUST\n' >"$tmp/other-app/secret.yaml"
  printf 'resources:\n  - secret.yaml\n' >"$tmp/other-app/kustomization.yaml"
  printf 'TOPSECRET-KUST\n' >"$tmp/other-app/password.txt"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\ndata:\n  x: TOPSECRET-KUST\n' >"$tmp/other-app/patch.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/ov/mine.yaml"
}
raw() { (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp" timeout 60 \
  kubectl kustomize ov "$@") >"$tmp/raw.out" 2>&1; }
result() { if [ "$2" = yes ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
is_real() { grep -q TOPSECRET-KUST "$tmp/raw.out" && result "$1" yes || result "$1" no "kubectl kustomize did not leak: $(head -c 300 "$tmp/raw.out")"; }
not_shown() { grep -q TOPSECRET-KUST "$out" "$err" && result "$1" no "the neighbour's content came out" || result "$1" yes; }

# 1. the package asks for LoadRestrictionsNone: only the operator may
kpkg 'loadRestrictor: LoadRestrictionsNone'
printf 'resources:\n  - ../../../other-app/secret.yaml\n' >"$pkg/ov/kustomization.yaml"
raw --load-restrictor LoadRestrictionsNone; is_real kustomize-load-restrictor-is-real
CASE_ENV="$argo" check kustomize-load-restrictor-by-package-refused 1 \
  'Kptfile:10: .*loadRestrictor: LoadRestrictionsNone asks for more than this sidecar allows \(the operator'"'"'s CMP_KUSTOMIZE_LOAD_RESTRICTOR is LoadRestrictionsRootOnly\)'
# with the operator's LoadRestrictionsNone the file is still outside the repository
CASE_ENV="$argo $none" check kustomize-outside-file 1 \
  'ov/kustomization.yaml:2: .*resources\[0\]: "\.\./\.\./\.\./other-app/secret\.yaml" leads outside the repository'
not_shown kustomize-outside-file-content-never-shown
CASE_ENV="$argo CMP_KUSTOMIZE_LOAD_RESTRICTOR=None" check kustomize-load-restrictor-operator-typo 1 \
  'CMP_KUSTOMIZE_LOAD_RESTRICTOR on the sidecar must be LoadRestrictionsRootOnly or LoadRestrictionsNone'

# 2. a directory base outside the repository: kustomize's root-only restrictor allows it
kpkg
printf 'resources:\n  - ../../../other-app\n' >"$pkg/ov/kustomization.yaml"
raw; is_real kustomize-outside-dir-base-is-real
CASE_ENV="$argo" check kustomize-outside-dir-base 1 'resources\[0\]: "\.\./\.\./\.\./other-app" leads outside the repository'
not_shown kustomize-outside-dir-base-content-never-shown
printf 'components:\n  - ../../../other-app\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-outside-component 1 'components\[0\]: "\.\./\.\./\.\./other-app" leads outside the repository'
printf 'bases:\n  - ../../../other-app\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-outside-bases 1 'bases\[0\]: "\.\./\.\./\.\./other-app" leads outside the repository'

# 3. symlinks: a base, a kustomization file, a generator file
kpkg
ln -s "$tmp/other-app" "$pkg/ov/base"
printf 'resources:\n  - base\n' >"$pkg/ov/kustomization.yaml"
raw; is_real kustomize-symlink-base-is-real
CASE_ENV="$argo" check kustomize-symlink-base 1 'resources\[0\]: "base" leads outside the repository \(.*symlinks are followed\)'
not_shown kustomize-symlink-base-content-never-shown
rm "$pkg/ov/base" "$pkg/ov/kustomization.yaml"
ln -s "$tmp/other-app/kustomization.yaml" "$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-symlink-kustomization-file 1 \
  'ov/kustomization.yaml: .*kustomization: is a symlink that leads outside the repository'
rm "$pkg/ov/kustomization.yaml"
ln -s "$tmp/other-app/password.txt" "$pkg/ov/pw.txt"
printf 'configMapGenerator:\n  - name: x\n    files:\n      - password=pw.txt\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo $none" check kustomize-symlink-generator-file 1 \
  'configMapGenerator\[0\]\.files\[0\]: "pw\.txt" leads outside the repository'

# "link/../.." is cleaned by kustomize as text (Go's filepath.Join), not by the kernel: with link pointing deep
# into the repository, the kernel's reading of the path stays inside (at a decoy) while kustomize's climbs out
kpkg
mkdir -p "$tmp/repo/a/b/c/d" "$tmp/repo/other-app"
printf 'resources: []\n' >"$tmp/repo/other-app/kustomization.yaml"
ln -s "$tmp/repo/a/b/c/d" "$pkg/ov/link"
printf 'resources:\n  - link/../../../../other-app\n' >"$pkg/ov/kustomization.yaml"
raw; is_real kustomize-symlink-dotdot-is-real
CASE_ENV="$argo" check kustomize-symlink-dotdot 1 'resources\[0\]: "link/\.\./\.\./\.\./\.\./other-app" leads outside the repository'
not_shown kustomize-symlink-dotdot-content-never-shown

# 4. every other field that names a file: generator files and envs, patches, a transformer config, helm values
kpkg
printf 'resources: [mine.yaml]\nconfigMapGenerator:\n  - name: x\n    files:\n      - ../../../other-app/password.txt\n' >"$pkg/ov/kustomization.yaml"
raw --load-restrictor LoadRestrictionsNone; is_real kustomize-outside-generator-file-is-real
CASE_ENV="$argo $none" check kustomize-outside-generator-file 1 \
  'ov/kustomization.yaml:5: .*configMapGenerator\[0\]\.files\[0\]: "\.\./\.\./\.\./other-app/password\.txt" leads outside'
not_shown kustomize-outside-generator-file-content-never-shown
printf 'secretGenerator:\n  - name: x\n    envs:\n      - ../../../other-app/password.txt\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo $none" check kustomize-outside-generator-envs 1 'secretGenerator\[0\]\.envs\[0\]: .* leads outside the repository'
printf 'resources: [mine.yaml]\npatches:\n  - path: ../../../other-app/patch.yaml\n' >"$pkg/ov/kustomization.yaml"
raw --load-restrictor LoadRestrictionsNone; is_real kustomize-outside-patch-is-real
CASE_ENV="$argo $none" check kustomize-outside-patch 1 'patches\[0\]\.path: "\.\./\.\./\.\./other-app/patch\.yaml" leads outside'
not_shown kustomize-outside-patch-content-never-shown
printf 'apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: ../../../other-app/patch.yaml\n' >"$pkg/ov/transformer.yaml"
printf 'resources: [mine.yaml]\ntransformers:\n  - transformer.yaml\n' >"$pkg/ov/kustomization.yaml"
raw --load-restrictor LoadRestrictionsNone; is_real kustomize-outside-transformer-config-is-real
CASE_ENV="$argo $none" check kustomize-outside-transformer-config 1 \
  'ov/transformer\.yaml:5: .*: PatchTransformer path: "\.\./\.\./\.\./other-app/patch\.yaml" leads outside'
not_shown kustomize-outside-transformer-config-content-never-shown
printf 'helmCharts:\n  - name: c\n    valuesFile: ../../../other-app/password.txt\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-outside-helm-values 1 \
  'helmCharts\[0\]\.valuesFile: "\.\./\.\./\.\./other-app/password\.txt" leads outside'
printf 'helmGlobals:\n  chartHome: ../../../other-app\nhelmCharts:\n  - name: c\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-outside-helm-chart-home 1 \
  'helmGlobals\.chartHome: "\.\./\.\./\.\./other-app" leads outside the repository'

# 5. deeper in the graph: a base of the same repository that climbs out; the overlay without a Kptfile (Argo CD
#    naming the plugin for a kustomization directory)
kpkg
mkdir -p "$tmp/repo/base"
printf 'resources:\n  - ../../other-app\n' >"$tmp/repo/base/kustomization.yaml"
printf 'resources:\n  - ../../base\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-outside-nested-base 1 \
  '^cmp-generate: \.\./base/kustomization\.yaml:2: .*resources\[0\]: "\.\./\.\./other-app" leads outside the repository'
rm "$pkg/Kptfile"; pkg=$pkg/ov
printf 'resources:\n  - ../../../other-app\n' >"$pkg/kustomization.yaml"
CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app/ov" check kustomize-outside-no-kptfile 1 \
  'kustomization\.yaml:2: kustomize-build \(no Kptfile: Kustomize overlay\): resources\[0\]: .* leads outside the repository'

# 6. a graph too deep to be real stops at the limit
kpkg
for i in $(seq 1 40); do mkdir -p "$tmp/repo/chain/$i"; printf 'resources:\n  - ../%d\n' $((i + 1)) >"$tmp/repo/chain/$i/kustomization.yaml"; done
printf 'resources:\n  - ../../chain/1\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-graph-depth-limit 1 'the kustomizations nest deeper than 32 levels \(limit\)'

# 7. legitimate: another directory of the same repository (Argo CD allows ../base), and the operator's
#    LoadRestrictionsNone reading a file elsewhere in the repository
kpkg
mkdir -p "$tmp/repo/base" "$tmp/repo/platform"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-base\n' >"$tmp/repo/base/cm.yaml"
printf 'resources:\n  - cm.yaml\n' >"$tmp/repo/base/kustomization.yaml"
printf 'LOG_LEVEL=debug\n' >"$tmp/repo/platform/app.env"
printf 'resources:\n  - ../../base\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-same-repo-base 0 '^  name: from-base$'
printf 'resources:\n  - ../../base\nconfigMapGenerator:\n  - name: settings\n    envs:\n      - ../../platform/app.env\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-root-only-by-default 1 'security; file .*app\.env.* is not in or below'
CASE_ENV="$argo $none" check kustomize-operator-load-restrictor-none 0 '^  LOG_LEVEL: debug$'
