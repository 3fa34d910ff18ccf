# Attack: a value the package (or Argo CD) hands to helm becomes a helm option. `--post-renderer=/bin/sh` pipes the
# rendered manifests through a shell (a chart whose template is a shell script runs any command);
# `--set-file=x=/path` reads any file into the values, and the template prints it.
# Defence: each field is checked for what it is (helm's release-name rule, DNS-1123 namespaces, chart names,
# versions, apiVersions, URLs), flags are passed as --flag=value, and the release and chart come after "--".
. "$here/helm-lib.sh"
marker=$tmp/marker
# valid YAML for helm, and a script for sh: the command substitution runs while sh expands the line "cmd: ..."
shell_chart() { mkchart "$1" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  cmd: "$(touch %s)"' "$marker")"; }
ran() { [ -e "$marker" ] && echo "FAIL $1: the injected command ran (marker file created)"; rm -f "$marker"; }

newpkg; shell_chart "$pkg/charts/c"
step 'name: c' 'releaseName: "--post-renderer=/bin/sh"'
check helm-release-post-renderer 1 'Kptfile:[0-9]+: .*data\.releaseName "--post-renderer=/bin/sh" is not a release name helm accepts'
ran helm-release-post-renderer

rhc 'helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      releaseName: --post-renderer=/bin/sh'
check helm-release-post-renderer-rhc 1 'helm\.yaml:[0-9]+: .*templateOptions\.releaseName "--post-renderer=/bin/sh" is not a release name'
ran helm-release-post-renderer-rhc

# the default release name is the Application's name: Argo CD's, but still never an option
step 'name: c'
CASE_ENV="ARGOCD_APP_NAME=--post-renderer=/bin/sh ARGOCD_APP_SOURCE_PATH=app" \
  check helm-release-from-app-name-post-renderer 1 'release name "--post-renderer=/bin/sh" \(from ARGOCD_APP_NAME'
ran helm-release-from-app-name-post-renderer

newpkg; mkchart "$pkg/charts/c" 'apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  x: {{ .Values.x | quote }}'
step 'name: c' "releaseName: \"--set-file=x=$tmp/secret.txt\""
check helm-release-set-file 1 'data\.releaseName "--set-file=x=.*" is not a release name'
if leaked; then echo "FAIL helm-release-set-file: the file outside the repository reached the output"; fi

# chartArgs.name with a repo: before, the release was taken for the chart and the name for an option
mkdir -p "$tmp/srv"; shell_chart "$tmp/build/evil"; helmrepo "$tmp/srv" "$tmp/build/evil"; httpd "$tmp/srv"
newpkg
rhc "helmCharts:
  - chartArgs:
      name: --post-renderer=/bin/sh
      repo: http://127.0.0.1:$port
    templateOptions:
      releaseName: evil"
check helm-chart-name-post-renderer 1 'helm\.yaml:[0-9]+: .*chartArgs\.name "--post-renderer=/bin/sh" is not a chart name'
ran helm-chart-name-post-renderer
if [ -s "$httplog" ]; then echo "FAIL helm-chart-name-post-renderer: something was fetched: $(head -3 "$httplog" | tr '\n' ' ')"; fi

# every other field that reaches helm's command line
newpkg; mkchart "$pkg/charts/c"
step 'name: c' 'namespace: "--post-renderer=/bin/sh"'
check helm-namespace-not-an-option 1 'data\.namespace "--post-renderer=/bin/sh" is not a namespace name'
step 'name: c' 'namespace: Team_A'
check helm-namespace-dns-label 1 'data\.namespace "Team_A" is not a namespace name'
step 'name: c' 'version: "--post-renderer=/bin/sh"' "repo: http://127.0.0.1:1"
check helm-version-not-an-option 1 'data\.version "--post-renderer=/bin/sh" is not a chart version'
step 'name: c' 'repo: "--post-renderer=/bin/sh"'
check helm-repo-not-an-option 1 'data\.repo must be an https:// or http:// chart repository or an oci:// registry'
step 'name: c' 'repo: file:///etc'
check helm-repo-file-scheme 1 'data\.repo must be an https:// or http:// chart repository or an oci:// registry'
rhc 'helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      apiVersions: [v1, "--post-renderer=/bin/sh"]'
check helm-api-versions-not-an-option 1 'helm\.yaml:[0-9]+: .*templateOptions\.apiVersions\[1\] is not an apiVersion'
rhc 'helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      apiVersions: ["a/v1,--post-renderer=/bin/sh"]'
check helm-api-versions-comma 1 'templateOptions\.apiVersions\[0\] is not an apiVersion'
step 'name: c'
CASE_ENV="$argocd KUBE_VERSION=--post-renderer=/bin/sh" check helm-kube-version-not-an-option 1 'KUBE_VERSION "--post-renderer=/bin/sh" \(from Argo CD\) is not a Kubernetes version'
CASE_ENV="$argocd KUBE_API_VERSIONS=apps/v1,--post-renderer=/bin/sh" check helm-kube-api-versions-not-an-option 1 'KUBE_API_VERSIONS entry "--post-renderer=/bin/sh" \(from Argo CD\) is not an apiVersion'
CASE_ENV="$argocd ARGOCD_APP_NAMESPACE=--post-renderer=/bin/sh" check helm-app-namespace-not-an-option 1 'ARGOCD_APP_NAMESPACE \(the destination namespace\) "--post-renderer=/bin/sh" is not a namespace name'

# helm's own rule, as helm states it: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$, at most 53
step 'name: c' 'releaseName: my.release-1'
check helm-release-helm-rule-accepted 0 'release: "my\.release-1"'
step 'name: c' "releaseName: $(printf 'a%.0s' $(seq 54))"
check helm-release-too-long 1 'data\.releaseName "a{54}" is not a release name helm accepts'
for bad in 'Shop' 'shop-' 'a..b' 'a.-b' 'a_b'; do
  step 'name: c' "releaseName: \"$bad\""
  check "helm-release-rule-$bad" 1 'is not a release name helm accepts'
done
# apps in any namespace: ARGOCD_APP_NAME is <namespace>_<name>; the release is the name, as Argo CD's own helm has it
step 'name: c'
CASE_ENV="ARGOCD_APP_NAME=team-a_shop ARGOCD_APP_SOURCE_PATH=app" check helm-release-app-in-any-namespace 0 'release: "shop"'

# The Application's Helm parameters (written by whoever edits the Application, not the operator). helm-parameters
# becomes a values document, never --set flags: a value that reads as an option or as more assignments, and a key
# that would, stay values or are refused; helm-release-name follows helm's rule like any release name.
newpkg; shell_chart "$pkg/charts/c"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\ndata:\n  x: {{ .Values.x | quote }}\n  y: {{ .Values.y | quote }}\n  b: {{ .Values.b | quote }}\n  r: {{ .Release.Name | quote }}\n' \
  >"$pkg/charts/c/templates/values.yaml"
step 'name: c'
CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-parameters\",\"map\":{\"x\":\"--post-renderer=/bin/sh\",\"y\":\"a,b=c\"}}]" \
  check helm-parameters-value-not-an-option 0 'x: "--post-renderer=/bin/sh"'
ran helm-parameters-value-not-an-option
grep -q 'y: "a,b=c"' "$out" && ! grep -q '^  b: .*c' "$out" && echo "PASS helm-parameters-value-not-an-assignment" ||
  echo "FAIL helm-parameters-value-not-an-assignment: $(grep -E '^  (y|b):' "$out" | tr '\n' ' ')"
CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-parameters\",\"map\":{\"x,--post-renderer\":\"/bin/sh\"}}]" \
  check helm-parameters-key-not-an-option 1 '^cmp-generate: parameters: parameter "helm-parameters": key "x,--post-renderer" has an unescaped .,.'
ran helm-parameters-key-not-an-option
CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-parameters\",\"map\":{\"x=y,b\":\"z\"}}]" \
  check helm-parameters-key-not-an-assignment 1 'parameter "helm-parameters": key "x=y,b" has an unescaped .=.'
CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-release-name\",\"string\":\"--post-renderer=/bin/sh\"}]" \
  check helm-release-name-parameter-not-an-option 1 '^cmp-generate: parameters: parameter "helm-release-name": "--post-renderer=/bin/sh" is not a release name helm accepts'
ran helm-release-name-parameter-not-an-option
CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-release-name\",\"string\":\"Shop_1\"}]" \
  check helm-release-name-parameter-helm-rule 1 'parameter "helm-release-name": "Shop_1" is not a release name helm accepts'
CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-release-name\",\"string\":\"shop.v2\"}]" \
  check helm-release-name-parameter-used 0 'r: "shop\.v2"'
