# Sourced by tests/cli/run ($bin, $tmp, expect): kubeconform and kubeval, the schema validators built in. Where the
# schemas come from (CMP_KUBE_OPENAPI_DIR, else data/kubernetes-openapi beside the binary), a version that is not
# shipped, and the results a failing validation records.

# schpkg DIR IMAGE CONFIG OBJECT: a package whose one validator is IMAGE with CONFIG (lines, 8 spaces in) and one
# object file (the Kptfile is skipped by kind)
schpkg() {
  rm -rf "$1"; mkdir -p "$1"
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  validators:\n    - image: %s\n      configMap:\n        skip_kinds: Kptfile\n%s\n' \
    "$2" "$3" >"$1/Kptfile"
  printf '%s' "$4" >"$1/obj.yaml"
}
sch_svc='apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: "80"
      targetPort: 8080
'
schpkg "$tmp/sch" gcr.io/kpt-fn/kubeconform:v0.1 '        strict: "true"' "$sch_svc"
rm -rf "$tmp/sch-res"
expect schema-invalid-fails 1 '' "$bin" render --no-git-metadata --results-dir "$tmp/sch-res" "$tmp/sch"
grep -q 'obj.yaml:1: pipeline.validators\[0\] (kubeconform): Service/web: 1 schema error against Kubernetes 1.36; the first: spec.ports.0.port: got string, want integer$' "$tmp/err" &&
  echo "PASS schema-invalid-error-line" || echo "FAIL schema-invalid-error-line: $(head -c 300 "$tmp/err")"
# results as the catalog's kubeconform records them: error severity, the object, the field, the file
if tr '\n' '|' <"$tmp/sch-res/results.yaml" | grep -q "results:|      - message: got string, want integer|        severity: error|        resourceRef:|          apiVersion: v1|          kind: Service|          name: web|        field:|          path: spec.ports.0.port|        file:|          path: obj.yaml"; then
  echo "PASS schema-invalid-results"; else echo "FAIL schema-invalid-results: $(head -c 600 "$tmp/sch-res/results.yaml")"; fi

# the operator's directory: an empty one has no document; one holding a copy is used, beside-the-binary is not
mkdir -p "$tmp/sch-empty" "$tmp/sch-dir"
schpkg "$tmp/sch-ok" gcr.io/kpt-fn/kubeconform:v0.1 '        strict: "true"' 'apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  a: b
'
expect schema-dir-empty 1 '' env CMP_KUBE_OPENAPI_DIR="$tmp/sch-empty" "$bin" render --no-git-metadata "$tmp/sch-ok"
grep -q "sch-empty: pipeline.validators\[0\] (kubeconform): no Kubernetes OpenAPI document (swagger-v1.<minor>.json.gz) in the schema directory" "$tmp/err" &&
  echo "PASS schema-dir-empty-says-so" || echo "FAIL schema-dir-empty-says-so: $(head -c 300 "$tmp/err")"
expect schema-dir-missing 1 '' env CMP_KUBE_OPENAPI_DIR="$tmp/sch-nowhere" "$bin" render --no-git-metadata "$tmp/sch-ok"
grep -q "cannot read the Kubernetes OpenAPI directory (CMP_KUBE_OPENAPI_DIR)" "$tmp/err" &&
  echo "PASS schema-dir-missing-names-setting" || echo "FAIL schema-dir-missing-names-setting: $(head -c 300 "$tmp/err")"
cp "$root/data/kubernetes-openapi/swagger-v1.31.json.gz" "$tmp/sch-dir/swagger-v1.29.json.gz"
expect schema-dir-setting 0 '^kind: ConfigMap$' env CMP_KUBE_OPENAPI_DIR="$tmp/sch-dir" "$bin" render --no-git-metadata "$tmp/sch-ok"
# the data beside the binary: a copy of the binary without it finds nothing (the one line names the setting)
mkdir -p "$tmp/sch-bin" && cp "$bin" "$tmp/sch-bin/cmp-generate"
expect schema-default-beside-binary 1 '' "$tmp/sch-bin/cmp-generate" render --no-git-metadata "$tmp/sch-ok"
grep -q "CMP_KUBE_OPENAPI_DIR is unset and the project's data/kubernetes-openapi is not installed beside the binary" "$tmp/err" &&
  echo "PASS schema-default-names-setting" || echo "FAIL schema-default-names-setting: $(head -c 300 "$tmp/err")"
mkdir -p "$tmp/sch-share/share/cmp-generate" "$tmp/sch-share/bin" && cp "$bin" "$tmp/sch-share/bin/cmp-generate" &&
  cp -r "$root/data/kubernetes-openapi" "$tmp/sch-share/share/cmp-generate/"
expect schema-default-installed-share 0 '^kind: ConfigMap$' "$tmp/sch-share/bin/cmp-generate" render --no-git-metadata "$tmp/sch-ok"

# a version that is not shipped: the nearest one, with a warning; a version that is no version: an error
schpkg "$tmp/sch-v" gcr.io/kpt-fn/kubeconform:v0.1 '        kubernetes_version: v1.33.2' 'apiVersion: v1
kind: ConfigMap
metadata:
  name: c
'
expect schema-version-nearest 0 '^kind: ConfigMap$' "$bin" render --no-git-metadata --results-dir "$tmp/sch-v-res" "$tmp/sch-v"
grep -q "no schema for Kubernetes 1.33 is shipped, validating against 1.32" "$tmp/sch-v-res/results.yaml" &&
  echo "PASS schema-version-nearest-warns" || echo "FAIL schema-version-nearest-warns: $(head -c 400 "$tmp/sch-v-res/results.yaml")"
schpkg "$tmp/sch-bad" gcr.io/kpt-fn/kubeval:v0.3 '        kubernetes_version: stable' "$sch_svc"
expect schema-version-not-a-version 1 '' "$bin" render --no-git-metadata "$tmp/sch-bad"
grep -q 'kubernetes_version "stable" is not a Kubernetes version' "$tmp/err" &&
  echo "PASS schema-version-not-a-version-says-so" || echo "FAIL schema-version-not-a-version-says-so: $(head -c 300 "$tmp/err")"
schpkg "$tmp/sch-key" gcr.io/kpt-fn/kubeconform:v0.1 '        stirct: "true"' "$sch_svc"
expect schema-unknown-key 1 '' "$bin" render --no-git-metadata "$tmp/sch-key"
grep -q 'Kptfile:10: pipeline.validators\[0\] (kubeconform): unknown config key stirct' "$tmp/err" &&
  echo "PASS schema-unknown-key-names-it" || echo "FAIL schema-unknown-key-names-it: $(head -c 300 "$tmp/err")"
# kubeval: the same object in kubeval's words; no object to check reads no document at all
schpkg "$tmp/sch-kv" gcr.io/kpt-fn/kubeval:v0.3 '        strict: "true"' "$sch_svc"
expect schema-kubeval-invalid 1 '' "$bin" render --no-git-metadata "$tmp/sch-kv"
grep -q "the first: spec.ports.0.port: Invalid type. Expected: integer, given: string$" "$tmp/err" &&
  echo "PASS schema-kubeval-words" || echo "FAIL schema-kubeval-words: $(head -c 300 "$tmp/err")"
mkdir -p "$tmp/sch-none"
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  validators:\n    - image: gcr.io/kpt-fn/kubeconform:v0.1\n      configMap:\n        skip_kinds: Kptfile,Widget\n' >"$tmp/sch-none/Kptfile"
printf 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n' >"$tmp/sch-none/w.yaml"
expect schema-nothing-to-check-reads-nothing 0 '*' env CMP_KUBE_OPENAPI_DIR="$tmp/sch-nowhere" "$bin" render --no-git-metadata "$tmp/sch-none"
# a config of another kind with the keys at its top level, as the catalog's kubeconform also reads them
mkdir -p "$tmp/sch-top"
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  validators:\n    - image: gcr.io/kpt-fn/kubeconform:v0.1\n      configPath: kc.yaml\n' >"$tmp/sch-top/Kptfile"
printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: KubeconformConfig\nmetadata:\n  name: kc\n  annotations:\n    config.kubernetes.io/local-config: "true"\nstrict: true\nskip_kinds: Kptfile,KubeconformConfig\n' >"$tmp/sch-top/kc.yaml"
printf '%s' "$sch_svc" | sed 's/port: "80"/port: 80\n      tragetPort: 8080/' >"$tmp/sch-top/obj.yaml"
expect schema-top-level-config 1 '' "$bin" render --no-git-metadata "$tmp/sch-top"
grep -q "additional properties 'tragetPort' not allowed" "$tmp/err" &&
  echo "PASS schema-top-level-config-read" || echo "FAIL schema-top-level-config-read: $(head -c 300 "$tmp/err")"
