# Attack: a helm (a chart's plugin, a post-renderer, a compromised binary) reading what the sidecar knows. Children
# get an allow-list of the sidecar's variables: no ARGOCD_ENV_*, PARAM_*, ARGOCD_APP_PARAMETERS, KUBECONFIG or
# sidecar secrets; HOME and TMPDIR in scratch; their resource limits applied; values that may be secret (inline
# values, the helm-values parameter) handed over as descriptors that never have a name in a directory.
. "$here/children.sh"
helmpkg

fakehelm <<'EOF'
env >"$rec/env"
cat /proc/self/limits >"$rec/limits"
echo "$@" >"$rec/args"
for a in "$@"; do case $a in /proc/self/fd/*) cat "$a" >>"$rec/values";; --values=/proc/self/fd/*) cat "${a#--values=}" >>"$rec/values";; esac; done
grep -rl s3cr3t "$TMPDIR/.." >"$rec/secret-files" 2>&1
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n'
EOF

sidecar=(ARGOCD_APP_NAME=demo ARGOCD_ENV_TOKEN=s3cr3t-env PARAM_TOKEN=s3cr3t-param
  'ARGOCD_APP_PARAMETERS=[{"name":"helm-values","string":"{\"password\":\"s3cr3t-values\"}"}]'
  AWS_SECRET_ACCESS_KEY=s3cr3t-aws KUBECONFIG=/etc/kubeconfig-s3cr3t GIT_ASKPASS=argocd
  HTTPS_PROXY=http://proxy.example:3128 TZ=Europe/Paris CMP_CHILD_ENV=EXTRA_CA,OTHER EXTRA_CA=/etc/ca.pem)
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  # in the Components' container (256Mi): the render's budget is 192 MB, and a child gets 3/4 of what it has free
  in_container memory.max 268435456
  start_cg "$bin" "${sidecar[@]}"; finish; wrap=()
  why=
  grep -q s3cr3t "$rec/env" && why="$why secret in env: $(grep s3cr3t "$rec/env" | cut -c1-40 | tr '\n' ' ')"
  grep -Eq '^(ARGOCD_|PARAM_|KUBECONFIG|AWS_|GIT_ASKPASS|CMP_CHILD_ENV)' "$rec/env" && why="$why leaked: $(grep -Eo '^(ARGOCD_|PARAM_|KUBECONFIG|AWS_|GIT_|CMP_)[A-Z_]*' "$rec/env" | tr '\n' ' ')"
  for want in 'HTTPS_PROXY=http://proxy.example:3128' 'TZ=Europe/Paris' 'EXTRA_CA=/etc/ca.pem' "HOME=$scratch/cmp-generate\.[^/]*/home" \
      "TMPDIR=$scratch/cmp-generate\.[^/]*/tmp" 'GOMEMLIMIT=11[2-5]MiB$' "HELM_CACHE_HOME=$scratch/" 'PATH='; do
    grep -Eq "^$want" "$rec/env" || why="$why missing $want;"
  done
  verdict children-env-allow-list "$tag" 0 'name: ok' "$why$(leftovers 0)"

  why=
  # 140 to 144 MiB: 3/4 of the 192 MB less what the render holds when helm starts
  grep -Eq '^Max data size +1(4[6-9]|50)[0-9]{6} +1(4[6-9]|50)[0-9]{6} ' "$rec/limits" || why="$why data: $(grep 'Max data' "$rec/limits");"
  grep -Eq '^Max cpu time +60 +60 ' "$rec/limits" || why="$why cpu: $(grep 'Max cpu' "$rec/limits");"
  grep -Eq '^Max file size +268435456 +268435456 ' "$rec/limits" || why="$why file: $(grep 'Max file size' "$rec/limits");"
  grep -Eq '^Max core file size +0 +0 ' "$rec/limits" || why="$why core: $(grep 'Max core' "$rec/limits");"
  verdict children-resource-limits-default "$tag" 0 '' "$why"

  # the values reached helm through /proc/self/fd (inline first, then the parameter), and no file in scratch
  # held them while helm ran
  why=
  grep -Eq -- '--values=/proc/self/fd/3 --values=/proc/self/fd/4 -- ' "$rec/args" || why="$why args: $(cat "$rec/args");"
  [ "$(cat "$rec/values" 2>/dev/null)" = "$(printf 'inline: s3cr3t-inline\n{"password":"s3cr3t-values"}')" ] || why="$why values: $(cat "$rec/values" 2>&1);"
  [ -s "$rec/secret-files" ] && why="$why secret in scratch: $(head -c 300 "$rec/secret-files");"
  verdict children-values-never-in-a-file "$tag" 0 '' "$why"

  start_cg "$bin" CMP_CHILD_MAX_MEMORY_MB=300 CMP_CHILD_MAX_CPU_SECONDS=7 CMP_CHILD_MAX_FILE_MB=5 CMP_CHILD_MAX_PROCS=900; finish
  why=
  grep -Eq '^Max data size +314572800 +314572800 ' "$rec/limits" || why="$why data: $(grep 'Max data' "$rec/limits");"
  grep -Eq '^Max cpu time +7 +7 ' "$rec/limits" || why="$why cpu: $(grep 'Max cpu' "$rec/limits");"
  grep -Eq '^Max file size +5242880 +5242880 ' "$rec/limits" || why="$why file: $(grep 'Max file size' "$rec/limits");"
  grep -Eq '^Max processes +900 +900 ' "$rec/limits" || why="$why procs: $(grep 'Max processes' "$rec/limits");"
  grep -q '^GOMEMLIMIT=240MiB$' "$rec/env" || why="$why $(grep GOMEMLIMIT "$rec/env");"
  verdict children-resource-limits-set "$tag" 0 '' "$why"

  # the operator's settings are checked: a name Argo CD's request can set is refused, so is a bad number
  start_cg "$bin" CMP_CHILD_ENV=PATH,ARGOCD_ENV_TOKEN ARGOCD_ENV_TOKEN=s3cr3t-env; finish
  grep -q s3cr3t "$tmp/err" && rc=98
  verdict children-env-refuses-request-variables "$tag" 1 'CMP_CHILD_ENV: ARGOCD_ENV_TOKEN is Argo CD.s .*never passed' "$(leftovers 0)"
  start_cg "$bin" CMP_CHILD_ENV=CMP_HELM_GUARD_ROOT CMP_HELM_GUARD_ROOT=/; finish
  verdict children-env-refuses-guard-variables "$tag" 1 'CMP_CHILD_ENV: CMP_HELM_GUARD_ROOT is cmp-generate.s own' "$(leftovers 0)"
  start_cg "$bin" CMP_CHILD_MAX_MEMORY_MB=lots; finish
  verdict children-limit-setting-checked "$tag" 1 'CMP_CHILD_MAX_MEMORY_MB must be a whole number from 0 \(no limit\)' "$(leftovers 0)"
done
