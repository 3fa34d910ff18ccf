# Attack: helm validates values against the chart's values.schema.json and follows its "$ref"s: an http(s) URL is
# fetched from inside the sidecar's network, a file:// one is read (and the error quotes its first bytes). The
# schema may sit in the chart, in a subchart archive under charts/, or in a chart pulled from a repository.
# Defence: every values.schema.json helm will load (directories, archives, archives in archives, pulled charts) is
# parsed first; a "$ref" may only point inside the schema ("#...").
. "$here/helm-lib.sh"
mkdir -p "$tmp/srv"; printf '{"type": "object"}' >"$tmp/srv/schema.json"
fetched() { grep -q 'schema\.json' "$httplog" && echo "FAIL $1: helm fetched the schema URL"; : >"$httplog"; }
schema_chart() { mkchart "$1"; printf '%s' "$2" >"$1/values.schema.json"; }
# a chart repository whose chart's schema points at the server (built before the server starts: the port is fixed
# then, so the remote chart's URL is written after)
httpd "$tmp/srv"
schema_chart "$tmp/build/remote" "{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"
helmrepo "$tmp/srv" "$tmp/build/remote"; : >"$httplog"

newpkg; schema_chart "$pkg/charts/c" "{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"; step 'name: c'
check helm-schema-ref-url 1 'app/charts/c/values\.schema\.json:1: .*chart "app/charts/c": "\$ref": "http://127\.0\.0\.1:[0-9]+/schema\.json" reaches outside the schema'
fetched helm-schema-ref-url

schema_chart "$pkg/charts/c" "{\"properties\": {\"x\": {\"\$ref\": \"file://$tmp/secret.txt\"}}}"
check helm-schema-ref-file 1 '"\$ref": "file://.*" reaches outside the schema'
if leaked; then echo "FAIL helm-schema-ref-file: the file outside the repository reached the output"; fi
schema_chart "$pkg/charts/c" '{"$ref": "../../../../secret.txt"}'
check helm-schema-ref-relative 1 '"\$ref": "\.\./\.\./\.\./\.\./secret\.txt" reaches outside the schema'
# JSON escapes are JSON: "\u0024ref" is "$ref"
schema_chart "$pkg/charts/c" "{\"\\u0024ref\": \"http://127.0.0.1:$port/schema.json\"}"
check helm-schema-ref-escaped 1 'reaches outside the schema'
fetched helm-schema-ref-escaped

# in a subchart archive (what `helm dependency build` leaves under charts/), and in an archive inside that one
newpkg; mkchart "$pkg/charts/c"; schema_chart "$tmp/build/sub" "{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"
mkdir -p "$pkg/charts/c/charts"; helmx package -d "$pkg/charts/c/charts" "$tmp/build/sub" >/dev/null; step 'name: c'
check helm-schema-ref-in-archive 1 'charts/c/charts/sub-0\.1\.0\.tgz:sub/values\.schema\.json:1: .*reaches outside the schema'
fetched helm-schema-ref-in-archive
# (helm package would unpack the inner archive: tar keeps it as it is)
mkchart "$tmp/build/outer"; mkdir -p "$tmp/build/outer/charts"; mv "$pkg/charts/c/charts/sub-0.1.0.tgz" "$tmp/build/outer/charts/"
tar -czf "$pkg/charts/c/charts/outer-0.1.0.tgz" -C "$tmp/build" outer
check helm-schema-ref-in-nested-archive 1 'outer-0\.1\.0\.tgz:outer/charts/sub-0\.1\.0\.tgz:sub/values\.schema\.json:1: .*reaches outside the schema'
fetched helm-schema-ref-in-nested-archive

# a chart from a repository: pulled, then checked before helm template reads it
newpkg
rhc "helmCharts:
  - chartArgs:
      name: remote
      repo: http://127.0.0.1:$port"
check helm-schema-ref-pulled-chart 1 'chart "remote": "\$ref": "http://.*" reaches outside the schema'
fetched helm-schema-ref-pulled-chart

# what stays allowed: references inside the schema, an $id, a $schema
newpkg; schema_chart "$pkg/charts/c" '{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/c.json", "type": "object", "properties": {"release": {"$ref": "#/definitions/s"}}, "definitions": {"s": {"type": "string"}}}'
step 'name: c'
check helm-schema-ref-local-allowed 0 'release: "attack"'

# a dependency `helm dependency build` fetches from a registry the chart declares (oci:// needs no repository
# setup): checked after the build. The registry is simulated by a helm wrapper that drops the archive in charts/.
newpkg; mkchart "$pkg/charts/c"; schema_chart "$tmp/build/dep" "{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"
helmx package -d "$tmp/registry" "$tmp/build/dep" >/dev/null
printf 'dependencies:\n  - name: dep\n    version: 0.1.0\n    repository: oci://registry.example/charts\n' >>"$pkg/charts/c/Chart.yaml"
printf 'dependencies:\n- name: dep\n  repository: oci://registry.example/charts\n  version: 0.1.0\ndigest: sha256:0\ngenerated: "2024-01-01T00:00:00Z"\n' >"$pkg/charts/c/Chart.lock"
printf '#!/bin/sh\nif [ "$1 $2" = "dependency build" ]; then for a; do d=$a; done; mkdir -p "$d/charts"; cp %s "$d/charts/"; exit 0; fi\nexec %s "$@"\n' \
  "$tmp/registry/dep-0.1.0.tgz" "$tools/helm" >"$tmp/helm-registry"; chmod +x "$tmp/helm-registry"
step 'name: c'
CASE_ENV="$argocd HELM_BIN=$tmp/helm-registry" check helm-schema-ref-in-fetched-dependency 1 'charts/c/charts/dep-0\.1\.0\.tgz:dep/values\.schema\.json:1: .*reaches outside the schema'
fetched helm-schema-ref-in-fetched-dependency

# under kustomize, when the operator turns helm on there: kustomize hands helm the chart through our guard, which
# checks the same schemas (in the chart's directory and in its archives) before it runs helm
kpkg() {
  newpkg
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n    - image: kustomize-build\n      configMap:\n        path: ov\n' >"$pkg/Kptfile"
  mkdir -p "$pkg/ov"; printf 'helmCharts:\n  - name: c\n    releaseName: web\n' >"$pkg/ov/kustomization.yaml"
}
# kchart DIR [SCHEMA]: a chart as kustomize wants it (it reads the chart's values.yaml itself)
kchart() { mkchart "$1" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kcm\ndata:\n  release: {{ .Release.Name | quote }}')"; printf 'replicas: 1\n' >"$1/values.yaml"; [ -z "${2:-}" ] || printf '%s' "$2" >"$1/values.schema.json"; }
kenv="$argocd CMP_KUSTOMIZE_ENABLE_HELM=true"
kpkg; kchart "$pkg/ov/charts/c" "{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"
(cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp" timeout 60 \
  kubectl kustomize ov --enable-helm --helm-command "$tools/helm" >/dev/null 2>&1)
grep -q 'schema\.json' "$httplog" && echo "PASS kustomize-helm-schema-ref-is-real" ||
  echo "FAIL kustomize-helm-schema-ref-is-real: kubectl kustomize did not make helm fetch the schema"
: >"$httplog"
CASE_ENV=$kenv check kustomize-helm-schema-ref 1 \
  'kustomize build ov: helm guard: app/ov/charts/c/values\.schema\.json:1: chart "app/ov/charts/c": "\$ref": "http://127\.0\.0\.1:[0-9]+/schema\.json" reaches outside the schema'
fetched kustomize-helm-schema-ref
# in a subchart archive, one helm packaged and one whose schema sits in a second gzip member
kpkg; kchart "$pkg/ov/charts/c"; mkdir -p "$pkg/ov/charts/c/charts"
helmx package -d "$pkg/ov/charts/c/charts" "$tmp/build/sub" >/dev/null
CASE_ENV=$kenv check kustomize-helm-schema-ref-in-archive 1 \
  'kustomize build ov: helm guard: app/ov/charts/c/charts/sub-0\.1\.0\.tgz:sub/values\.schema\.json:1: chart "app/ov/charts/c": "\$ref": "http://.*" reaches outside the schema'
fetched kustomize-helm-schema-ref-in-archive
rm "$pkg/ov/charts/c/charts/sub-0.1.0.tgz"
python3 "$here/chart-tgz.py" "$pkg/ov/charts/c/charts/sub-0.1.0.tgz" two-members sub "{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"
CASE_ENV=$kenv check kustomize-helm-schema-ref-in-second-gzip-member 1 \
  'kustomize build ov: helm guard: app/ov/charts/c/charts/sub-0\.1\.0\.tgz:sub/values\.schema\.json:1: .*reaches outside the schema'
fetched kustomize-helm-schema-ref-in-second-gzip-member
# the operator's chart limits hold in the guard too
CASE_ENV="$kenv CMP_MAX_CHART_FILES=3" check kustomize-helm-guard-chart-limit 1 \
  'kustomize build ov: helm guard: chart "app/ov/charts/c" has more than 3 files and directories.*CMP_MAX_CHART_FILES'
# ... and the operator's loader limits: a schema nested deeper than CMP_MAX_DEPTH is refused by the guard as it
# would be in the render (the guard ran with the built-in limits but the chart's before)
kpkg; kchart "$pkg/ov/charts/c" "$(python3 -c 'print("{\"properties\": " * 12 + "{}" + "}" * 12)')"
CASE_ENV="$kenv CMP_MAX_DEPTH=8" check kustomize-helm-guard-operator-depth 1 \
  'kustomize build ov: helm guard: .*values\.schema\.json.*nesting deeper than 8 levels.*CMP_MAX_DEPTH'
# ... and what the render has left of max-total-bytes: a 150 KB schema under CMP_MAX_TOTAL_BYTES=120000
kpkg; kchart "$pkg/ov/charts/c" "$(python3 -c 'print("{\"description\": \"" + "x" * 150000 + "\"}")')"
CASE_ENV="$kenv CMP_MAX_TOTAL_BYTES=120000" check kustomize-helm-guard-operator-total 1 \
  'kustomize build ov: helm guard: .*package input is over [0-9]+ bytes \(max-total-bytes'
# what stays allowed: references inside the schema
kpkg; kchart "$pkg/ov/charts/c" '{"type": "object", "properties": {"r": {"$ref": "#/definitions/s"}}, "definitions": {"s": {"type": "string"}}}'
CASE_ENV=$kenv check kustomize-helm-schema-ref-local-allowed 0 'release: "?web"?$'
