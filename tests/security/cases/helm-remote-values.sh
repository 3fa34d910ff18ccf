# Attack: a values file given as a URL makes helm (inside the sidecar's network) fetch it: any internal address,
# a cloud metadata endpoint. And a chart from a repository the package names.
# Defence: values URLs are refused unless the operator sets CMP_ALLOW_REMOTE_VALUES=true on the sidecar; chart
# repositories and registries named as chart sources (chartArgs.repo) are declared and fetched (with helm pull,
# then checked like a local chart).
. "$here/helm-lib.sh"
mkdir -p "$tmp/srv"; printf 'x: from-the-server\n' >"$tmp/srv/values.yaml"
mkchart "$tmp/build/remote"; helmrepo "$tmp/srv" "$tmp/build/remote"; httpd "$tmp/srv"
fetched() { grep -q 'values\.yaml' "$httplog" && echo "FAIL $1: helm fetched the URL: $(tr '\n' ' ' <"$httplog")"; : >"$httplog"; }
values_chart() { mkchart "$1" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: {{ .Values.x | quote }}')"; }

newpkg; values_chart "$pkg/charts/c"
rhc "helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      values:
        valuesFiles: [http://127.0.0.1:$port/values.yaml]"
check helm-remote-values-refused 1 'helm\.yaml:[0-9]+: .*templateOptions\.values\.valuesFiles entry 1 is a URL; .*CMP_ALLOW_REMOTE_VALUES=true'
fetched helm-remote-values-refused
if grep -q "127.0.0.1:$port" "$err"; then echo "FAIL helm-remote-values-refused: the message repeats the URL (it may carry credentials)"; fi

step 'name: c' "valuesFiles: \"https://user:token@127.0.0.1:$port/values.yaml\""
check helm-remote-values-refused-configmap 1 'data\.valuesFiles entry 1 is a URL'
if grep -q token "$err"; then echo "FAIL helm-remote-values-refused-configmap: the message repeats the credentials"; fi

# the operator allows it: fetched, and the value reaches the chart
rhc "helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      values:
        valuesFiles: [http://127.0.0.1:$port/values.yaml]"
CASE_ENV="$argocd CMP_ALLOW_REMOTE_VALUES=true" check helm-remote-values-allowed-by-operator 0 'x: "from-the-server"'
# ... and only "true" allows it
CASE_ENV="$argocd CMP_ALLOW_REMOTE_VALUES=yes-please" check helm-remote-values-only-true 1 'is a URL'

# a chart repository the package names is a declared source: pulled, checked, rendered (charts/c, which no step
# names any more, would be read as resources, as kpt reads it)
rm -rf "$pkg/charts/c"
rhc "helmCharts:
  - chartArgs:
      name: remote
      version: 0.1.0
      repo: http://127.0.0.1:$port
    templateOptions:
      releaseName: from-repo"
check helm-repo-chart-declared 0 'release: "from-repo"'
grep -q 'GET /remote-0.1.0.tgz' "$httplog" || echo "FAIL helm-repo-chart-declared: the chart was not fetched from the repository"
