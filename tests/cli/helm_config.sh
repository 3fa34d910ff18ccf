# Sourced by tests/cli/run: render-helm-chart's config keys that its release does not read (an error naming
# file, line and key, though the catalog ignores them: under Argo CD a warning is never seen; chartArgs.auth warns), and YAML text read outside a package file (parameters, the
# operator's credentials) that breaks a loader limit: the error names the limit. $bin, $root and $tmp come from run.

hc_pkg() { # dir: a package with a local chart "demo" (greeting from values) and a values file
  local d=$1
  rm -rf "$d"; mkdir -p "$d/charts/demo/templates"
  printf 'apiVersion: v2\nname: demo\nversion: 0.1.0\n' >"$d/charts/demo/Chart.yaml"
  printf 'greeting: chart-default\n' >"$d/charts/demo/values.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  greeting: {{ .Values.greeting | quote }}\n' \
    >"$d/charts/demo/templates/cm.yaml"
  printf 'greeting: from-values-file\n' >"$d/values.txt"
}

hc_kptfile() { # dir image: a Kptfile whose one step is render-helm-chart (configMap lines, or configPath, on stdin)
  { printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n  annotations:\n'
    printf '    config.kubernetes.io/local-config: "true"\npipeline:\n  mutators:\n    - image: %s\n' "$2"
    cat; } >"$1/Kptfile"
}

hc_check() { # name want-exit stdout-regex expected-stderr-file dir [env...]: stderr must equal the file, line for line
  local name=$1 want=$2 pat=$3 errs=$4 dir=$5; shift 5
  env -i PATH="$root/.tools/bin:/usr/bin:/bin" "$@" "$bin" render --no-git-metadata "$dir" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne "$want" ]; then echo "FAIL $name: exit $rc, want $want: $(head -c 400 "$tmp/err")"; return; fi
  if [ -n "$pat" ] && ! grep -Eq -- "$pat" "$tmp/out"; then echo "FAIL $name: stdout lacks /$pat/"; return; fi
  if [ -z "$pat" ] && [ -s "$tmp/out" ]; then echo "FAIL $name: stdout is not empty"; return; fi
  if ! diff -u "$errs" "$tmp/err" >"$tmp/err.diff"; then echo "FAIL $name: stderr differs: $(head -c 900 "$tmp/err.diff")"; return; fi
  echo "PASS $name"
}

W='cmp-generate: warning: '
S='pipeline.mutators[0] (render-helm-chart)'

E='cmp-generate: '

# the ConfigMap: a key the release does not read is an error naming file, line and key
hc_pkg "$tmp/hc1"
hc_kptfile "$tmp/hc1" gcr.io/kpt-fn/render-helm-chart:v0.3.0 <<'YAML'
      configMap:
        name: demo
        releaseName: rel
        valueFile: values.txt
YAML
printf '%s\n' "${E}Kptfile:13: $S: data.valueFile is not a field render-helm-chart v0.2.0 and later reads (chartHome, configHome, name, version, repo, releaseName, namespace, nameTemplate, includeCRDs, skipTests, valuesFile, valuesFiles)" >"$tmp/hc1.err"
hc_check rhc-configmap-unknown-key-refused 1 '' "$tmp/hc1.err" "$tmp/hc1"

# v0.1's ConfigMap does not read skipTests (v0.2 added it)
hc_kptfile "$tmp/hc1" gcr.io/kpt-fn/render-helm-chart:v0.1.0 <<'YAML'
      configMap:
        name: demo
        chartHome: charts
        releaseName: rel
        skipTests: "true"
YAML
printf '%s\n' "${E}Kptfile:14: $S: data.skipTests is not a field render-helm-chart v0.1.x reads (chartHome, configHome, name, version, repo, releaseName, namespace, valuesFile, includeCRDs)" >"$tmp/hc1b.err"
hc_check rhc-configmap-v0.1-skiptests-refused 1 '' "$tmp/hc1b.err" "$tmp/hc1"

# the typed config, one misspelt key at each level: top, helmGlobals, the entry (v0.1's flat field, with where it
# went), chartArgs, templateOptions, values
hc_pkg "$tmp/hc2"
hc_kptfile "$tmp/hc2" gcr.io/kpt-fn/render-helm-chart:v0.2.2 <<<'      configPath: helm.yaml'
hc_typed() { # name line message: helm.yaml is the RenderHelmChart header, then the lines on stdin
  local name=$1 line=$2 msg=$3
  { printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: RenderHelmChart\nmetadata:\n  name: demo\n  annotations:\n'
    printf '    config.kubernetes.io/local-config: "true"\n'
    cat; } >"$tmp/hc2/helm.yaml"
  printf '%s\n' "${E}helm.yaml:$line: $S: $msg" >"$tmp/hc2.err"
  hc_check "$name" 1 '' "$tmp/hc2.err" "$tmp/hc2"
}
hc_typed rhc-typed-top-key-refused 7 'helmGlobal is not a field render-helm-chart v0.2.0 and later reads (apiVersion, kind, metadata, helmGlobals, helmCharts)' <<'YAML'
helmGlobal:
  chartHome: charts
helmCharts:
  - chartArgs: {name: demo}
YAML
hc_typed rhc-typed-globals-key-refused 9 'helmGlobals.cacheHome is not a field render-helm-chart v0.2.0 and later reads (chartHome, configHome)' <<'YAML'
helmGlobals:
  chartHome: charts
  cacheHome: /tmp
helmCharts:
  - chartArgs: {name: demo}
YAML
hc_typed rhc-typed-flat-field-refused 11 "helmCharts[0].releaseName is render-helm-chart v0.1's flat schema, not read since v0.2.0 (use templateOptions.releaseName)" <<'YAML'
helmGlobals:
  chartHome: charts
helmCharts:
  - chartArgs: {name: demo}
    releaseName: rel
YAML
hc_typed rhc-typed-chartargs-key-refused 12 'helmCharts[0].chartArgs.versions is not a field render-helm-chart v0.2.0 and later reads (name, version, repo, registry, auth)' <<'YAML'
helmGlobals:
  chartHome: charts
helmCharts:
  - chartArgs:
      name: demo
      versions: 1.0.0
YAML
hc_typed rhc-typed-templateoptions-key-refused 12 'helmCharts[0].templateOptions.skipTest is not a field render-helm-chart v0.2.0 and later reads (apiVersions, releaseName, namespace, description, nameTemplate, includeCRDs, skipTests, values)' <<'YAML'
helmGlobals:
  chartHome: charts
helmCharts:
  - chartArgs: {name: demo}
    templateOptions:
      skipTest: true
YAML
hc_typed rhc-typed-values-key-refused 13 'helmCharts[0].templateOptions.values.valueFiles is not a field render-helm-chart v0.2.0 and later reads (valuesFiles, valuesInline, valuesMerge)' <<'YAML'
helmGlobals:
  chartHome: charts
helmCharts:
  - chartArgs: {name: demo}
    templateOptions:
      values:
        valueFiles: [values.txt]
YAML

# chartArgs.auth is read by the catalog but not used here (credentials are the operator's): one warning, the rest
# of the config applies
cat >"$tmp/hc2/helm.yaml" <<'YAML'
apiVersion: fn.kpt.dev/v1alpha1
kind: RenderHelmChart
metadata:
  name: demo
  annotations:
    config.kubernetes.io/local-config: "true"
helmGlobals:
  chartHome: charts
helmCharts:
  - chartArgs:
      name: demo
      auth:
        kind: Secret
        name: creds
    templateOptions:
      releaseName: rel
      values:
        valuesInline:
          greeting: inline
YAML
printf '%s\n' "${W}helm.yaml:12: $S: helmCharts[0].chartArgs.auth is not used here: credentials for chart repositories are the operator's (CMP_HELM_CREDENTIALS_DIR on the sidecar)" >"$tmp/hc2.err"
hc_check rhc-typed-auth-warns 0 'name: rel-cm' "$tmp/hc2.err" "$tmp/hc2"
grep -q 'greeting: "inline"' "$tmp/out" && echo "PASS rhc-typed-auth-rest-applies" ||
  echo "FAIL rhc-typed-auth-rest-applies: $(cat "$tmp/out")"

# a parameter's YAML over the alias limit: the error names the limit and its setting, as for a file of the package
bomb='a: &a [x,x,x,x,x,x,x,x,x]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]'
limit='aliases expand to more than 1000000 nodes (limit max-alias-nodes, against alias bombs; raise it with CMP_MAX_ALIAS_NODES)'
printf '%s\n' "cmp-generate: parameters: parameter \"helm-values\", line 7: $limit" >"$tmp/hv.err"
hc_check helm-values-alias-bomb-names-the-limit 1 '' "$tmp/hv.err" "$tmp/hc1" PARAM_HELM_VALUES="$bomb"
hc_check helm-values-alias-bomb-json-names-the-limit 1 '' "$tmp/hv.err" "$tmp/hc1" \
  ARGOCD_APP_PARAMETERS="[{\"name\":\"helm-values\",\"string\":\"${bomb//$'\n'/\\n}\"}]"
printf '%s\n' "cmp-generate: parameters: parameter \"helm-values\", line 2: invalid YAML: flow sequence without a closing bracket (column 1)" >"$tmp/hv2.err"
hc_check helm-values-invalid-yaml-says-why 1 '' "$tmp/hv2.err" "$tmp/hc1" PARAM_HELM_VALUES='a: [b'
printf '%s\n' "cmp-generate: parameters: ARGOCD_ENV_LABELS, line 7: $limit" >"$tmp/lb.err"
hc_check labels-alias-bomb-names-the-limit 1 '' "$tmp/lb.err" "$tmp/hc1" ARGOCD_ENV_LABELS="$bomb"
# the operator's repositories.yaml over the alias limit: named with the limit (the file's own text is never quoted)
mkdir -p "$tmp/creds" "$tmp/hc4"
printf '%s\n' "$bomb" >"$tmp/creds/repositories.yaml"
hc_kptfile "$tmp/hc4" gcr.io/kpt-fn/render-helm-chart:v0.3.0 <<'YAML'
      configMap:
        name: demo
        repo: https://127.0.0.1:9/charts
YAML
printf '%s\n' "cmp-generate: Kptfile:9: $S: the operator's CMP_HELM_CREDENTIALS_DIR/repositories.yaml, line 7: $limit" >"$tmp/cr.err"
hc_check helm-credentials-alias-bomb-names-the-limit 1 '' "$tmp/cr.err" "$tmp/hc4" CMP_HELM_CREDENTIALS_DIR="$tmp/creds"
