# Shared by the helm-* cases (sourced after lib.sh): charts written the way an attacker would, and a local HTTP
# server that records what was fetched. The render runs as under Argo CD: ARGOCD_APP_NAME and
# ARGOCD_APP_SOURCE_PATH make $tmp/repo the repository root (see fn_host.repo_root).
here=${here:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
argocd="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app"
CASE_ENV=$argocd
secret=TOPSECRET-$$-$RANDOM
printf '%s\n' "$secret" >"$tmp/secret.txt"
printf 'x: %s\n' "$secret" >"$tmp/secret-values.yaml"

# mkchart DIR [TEMPLATE]: a chart named after DIR with one template (default: a ConfigMap naming the release)
mkchart() {
  mkdir -p "$1/templates"
  printf 'apiVersion: v2\nname: %s\nversion: 0.1.0\n' "$(basename "$1")" >"$1/Chart.yaml"
  printf '%s\n' "${2:-$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  release: {{ .Release.Name | quote }}')}" \
    >"$1/templates/cm.yaml"
}

# step KEY: VALUE lines...: the package's Kptfile runs render-helm-chart with this ConfigMap data
step() {
  { printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n'
    printf '    - image: render-helm-chart\n      configMap:\n'
    for kv in "$@"; do printf '        %s\n' "$kv"; done; } >"$pkg/Kptfile"
}

# rhc FILE-TEXT: the package's Kptfile runs render-helm-chart with a RenderHelmChart config (helm.yaml)
rhc() {
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n    - image: render-helm-chart\n      configPath: helm.yaml\n' >"$pkg/Kptfile"
  printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: RenderHelmChart\nmetadata:\n  name: c\n  annotations:\n    config.kubernetes.io/local-config: "true"\n%s\n' "$1" >"$pkg/helm.yaml"
}

# leaked: the secret reached stdout or stderr
leaked() { grep -q "$secret" "$out" "$err"; }

# httpd ROOT: serves ROOT on 127.0.0.1:$port, logging each request to $httplog (stopped when the case ends)
httpd() {
  [ -x "$tmp/httpd" ] || cc -O1 -o "$tmp/httpd" "$here/httpd.c" || return 1
  httplog=$tmp/http.log; : >"$httplog"; rm -f "$tmp/port"
  "$tmp/httpd" "$1" "$tmp/port" "$httplog" & httpd_pid=$!
  trap 'kill "$httpd_pid" 2>/dev/null; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  port=$(cat "$tmp/port")
}

# helmx ARGS...: the real helm, as the attacker runs it to prepare a package (its homes in $tmp)
helmx() {
  timeout 60 env HELM_CACHE_HOME="$tmp/helm-home/cache" HELM_CONFIG_HOME="$tmp/helm-home/config" \
    HELM_DATA_HOME="$tmp/helm-home/data" "$tools/helm" "$@"
}

# helmrepo DIR CHART-DIR...: a chart repository in DIR (index.yaml and packaged charts)
helmrepo() {
  local d=$1; shift; mkdir -p "$d"
  for c in "$@"; do helmx package -d "$d" "$c" >/dev/null; done
  helmx repo index "$d" >/dev/null
}
