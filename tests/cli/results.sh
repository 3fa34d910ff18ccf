# Sourced by tests/cli/run ($bin, $tmp): what --results-dir records for a step that fails. The real function hands
# kpt a ResourceList whose results hold its error; results.yaml carries the catalog's own result where its recorded
# tests (tests/data/krm-functions-catalog) or the version notes give it, and our error line, severity error, where
# nothing does. The render's stderr line and exit status are the same either way.

# respkg DIR IMAGE CONFIG: a package with one Pod and one mutator; CONFIG is the step's config lines (6 spaces in).
respkg() {
  rm -rf "$1"; mkdir -p "$1"
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n    - image: %s\n%s\n' \
    "$2" "$3" >"$1/Kptfile"
  printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: a\n      image: nginx:1\n' \
    >"$1/pod.yaml"
}

# results_case NAME DIR WANT_STDERR_REGEX [render args...]: renders DIR with --results-dir, wants exit 1, stderr
# matching the regex, nothing on stdout, and the items of results.yaml equal to stdin.
results_case() {
  local name=$1 dir=$2 want_err=$3; shift 3
  cat >"$tmp/res-want"
  rm -rf "$tmp/res"
  env -i PATH=/usr/bin:/bin "$bin" render "$@" --results-dir "$tmp/res" "$dir" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 1 ] || [ -s "$tmp/out" ]; then echo "FAIL $name: exit $rc (want 1) or stdout not empty: $(cat "$tmp/err")"; return; fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -Eq -- "$want_err" "$tmp/err"; then
    echo "FAIL $name: stderr is not /$want_err/: $(cat "$tmp/err")"; return
  fi
  sed -n '/^items:/,$p' "$tmp/res/results.yaml" >"$tmp/res-got"
  if ! diff "$tmp/res-want" "$tmp/res-got" >"$tmp/res-diff"; then
    echo "FAIL $name: results.yaml items differ: $(tr '\n' ' ' <"$tmp/res-diff")"; return
  fi
  echo "PASS $name"
}

# set-annotations at unstable: the catalog's empty-list/advanced result, word for word, without our file and step
respkg "$tmp/res-sa" gcr.io/kpt-fn/set-annotations:unstable '      configPath: fn.yaml'
printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: f\nannotations: {}\n' >"$tmp/res-sa/fn.yaml"
results_case results-failed-step-catalog-result "$tmp/res-sa" \
  '^cmp-generate: fn.yaml:1: pipeline.mutators\[0\] \(set-annotations\): failed to configure function: input annotation list cannot be empty$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-annotations:unstable
    exitCode: 1
    stderr: 'fn.yaml:1: pipeline.mutators[0] (set-annotations): failed to configure function: input annotation list cannot be empty'
    results:
      - message: 'failed to configure function: input annotation list cannot be empty'
        severity: error
EOF

# the same at v0.1.4, whose result is on no record: our line, severity error
sed -i 's/:unstable/:v0.1.4/' "$tmp/res-sa/Kptfile"
results_case results-failed-step-our-line "$tmp/res-sa" 'input annotation list cannot be empty$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-annotations:v0.1.4
    exitCode: 1
    stderr: 'fn.yaml:1: pipeline.mutators[0] (set-annotations): failed to configure function: input annotation list cannot be empty'
    results:
      - message: 'fn.yaml:1: pipeline.mutators[0] (set-annotations): failed to configure function: input annotation list cannot be empty'
        severity: error
EOF

# set-labels with `configMap: {}`: v0.2+ reports an info and exits 1; v0.1.5 (kustomize) an error in other words
respkg "$tmp/res-sl" gcr.io/kpt-fn/set-labels:unstable '      configMap: {}'
results_case results-set-labels-no-config-unstable "$tmp/res-sl" '`FunctionConfig` is not given: the ConfigMap has no data$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-labels:unstable
    exitCode: 1
    stderr: 'Kptfile:7: pipeline.mutators[0] (set-labels): `FunctionConfig` is not given: the ConfigMap has no data'
    results:
      - message: '`FunctionConfig` is not given'
        severity: info
EOF
sed -i 's/:unstable/:v0.1.5/' "$tmp/res-sl/Kptfile"
results_case results-set-labels-no-config-v0.1.5 "$tmp/res-sl" 'input label list cannot be empty$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-labels:v0.1.5
    exitCode: 1
    stderr: 'Kptfile:7: pipeline.mutators[0] (set-labels): failed to configure function: input label list cannot be empty'
    results:
      - message: 'failed to configure function: input label list cannot be empty'
        severity: error
EOF

# set-labels names a wrong config by its Go GroupKind: the kind alone in the core group
respkg "$tmp/res-gk" gcr.io/kpt-fn/set-labels:v0.2.0 '      configPath: fn.yaml'
printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: f\ndata: {}\n' >"$tmp/res-gk/fn.yaml"
results_case results-set-labels-wrong-kind-core-group "$tmp/res-gk" 'unknown FunctionConfig `Secret.v1`' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    exitCode: 1
    stderr: 'fn.yaml:1: pipeline.mutators[0] (set-labels): unknown FunctionConfig `Secret.v1`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`'
    results:
      - message: unknown FunctionConfig `Secret`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`
        severity: error
EOF

printf 'apiVersion: example.com/v1beta1\nkind: Thing\nmetadata:\n  name: f\n' >"$tmp/res-gk/fn.yaml"
results_case results-set-labels-wrong-kind-group "$tmp/res-gk" 'unknown FunctionConfig `Thing.example.com/v1beta1`' <<'EOF2'
items:
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    exitCode: 1
    stderr: 'fn.yaml:1: pipeline.mutators[0] (set-labels): unknown FunctionConfig `Thing.example.com/v1beta1`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`'
    results:
      - message: unknown FunctionConfig `Thing.example.com`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`
        severity: error
EOF2

# set-image (newest): the SDK reports the error, then that the function stopped on it
respkg "$tmp/res-si" gcr.io/kpt-fn/set-image:unstable '      configMap:
        name: nginx'
results_case results-set-image-two-results "$tmp/res-si" 'must specify one of `newName`, `newTag`, or `digest`$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-image:unstable
    exitCode: 1
    stderr: 'Kptfile:7: pipeline.mutators[0] (set-image): invalid FunctionConfig: must specify one of `newName`, `newTag`, or `digest`'
    results:
      - message: must specify one of `newName`, `newTag`, or `digest`
        severity: error
      - message: 'function is terminated: must specify one of `newName`, `newTag`, or `digest`'
        severity: error
EOF

# set-image at latest (the 2026 catalog): one error `invalid FunctionConfig: ...`, then the summary it still gives,
# counting the fields the config matches (the Pod's nginx:1, left as it is); the catalog's own tests under ghcr's
# latest record both
sed -i 's/:unstable/:latest/' "$tmp/res-si/Kptfile"
results_case results-set-image-latest-error-and-summary "$tmp/res-si" 'must specify one of `newName`, `newTag`, or `digest`$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-image:latest
    exitCode: 1
    stderr: 'Kptfile:7: pipeline.mutators[0] (set-image): invalid FunctionConfig: must specify one of `newName`, `newTag`, or `digest`'
    results:
      - message: 'invalid FunctionConfig: must specify one of `newName`, `newTag`, or `digest`'
        severity: error
      - message: 'summary: updated a total of 1 image(s)'
        severity: info
EOF

# set-image's summary on success: latest counts every matching field (kustomize's mutation tracker fires on each
# set), gcr's unstable only the fields it changed (the catalog's set-image-with-same-name records 1 of 2)
for si in unstable:1 latest:2; do
  respkg "$tmp/res-sic" "gcr.io/kpt-fn/set-image:${si%%:*}" '      configMap:
        name: nginx
        newTag: "1"'
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: api\nspec:\n  containers:\n    - name: b\n      image: nginx:2\n' \
    >>"$tmp/res-sic/pod.yaml"
  rm -rf "$tmp/res"
  env -i PATH=/usr/bin:/bin "$bin" render --results-dir "$tmp/res" "$tmp/res-sic" >"$tmp/out" 2>"$tmp/err"; rc=$?
  got=$(grep -o "summary: updated a total of [0-9]* image(s)" "$tmp/res/results.yaml" 2>/dev/null)
  if [ $rc -eq 0 ] && [ "$got" = "summary: updated a total of ${si#*:} image(s)" ] && grep -q 'image: nginx:1$' "$tmp/out" &&
     ! grep -q 'nginx:2' "$tmp/out"; then
    echo "PASS results-set-image-summary-${si%%:*}"
  else
    echo "FAIL results-set-image-summary-${si%%:*}: exit $rc, '$got', want ${si#*:}: $(head -c 300 "$tmp/err")"
  fi
done

# The catalog's set-labels config errors (its ill-formatted-fn-config, wrong-config-data-type, wrong-config-group
# cases, whose packages our reader refuses first: see tests/conformance/deviations), word for word, and set-image's
# no-image-name
respkg "$tmp/res-cat" gcr.io/kpt-fn/set-labels:unstable '      configPath: fn.yaml'
printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: f\nlabels:\n  - color: orange\n' >"$tmp/res-cat/fn.yaml"
results_case results-set-labels-catalog-config-errors "$tmp/res-cat" 'labels must be a map of strings$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-labels:unstable
    exitCode: 1
    stderr: 'fn.yaml:6: pipeline.mutators[0] (set-labels): labels must be a map of strings'
    results:
      - message: 'unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal array into Go struct field SetLabels.labels of type map[string]string'
        severity: error
EOF
printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: BadKind\nmetadata:\n  name: f\nlabels:\n  color: orange\n' >"$tmp/res-cat/fn.yaml"
results_case results-set-labels-catalog-config-errors-kind "$tmp/res-cat" 'unknown FunctionConfig `BadKind.fn.kpt.dev/v1alpha1`' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-labels:unstable
    exitCode: 1
    stderr: 'fn.yaml:1: pipeline.mutators[0] (set-labels): unknown FunctionConfig `BadKind.fn.kpt.dev/v1alpha1`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`'
    results:
      - message: unknown FunctionConfig `BadKind.fn.kpt.dev`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`
        severity: error
EOF
respkg "$tmp/res-cat" gcr.io/kpt-fn/set-image:unstable '      configMap:
        newName: bar
        newTag: v1.0'
results_case results-set-image-no-name "$tmp/res-cat" 'invalid FunctionConfig: must specify `name`$' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-image:unstable
    exitCode: 1
    stderr: 'Kptfile:7: pipeline.mutators[0] (set-image): invalid FunctionConfig: must specify `name`'
    results:
      - message: must specify `name`
        severity: error
      - message: 'function is terminated: must specify `name`'
        severity: error
EOF

# Earlier steps keep their own items; only the failed one carries the error. The results file is whole, the same
# bytes on a second run, and nothing else is left in the directory.
respkg "$tmp/res-two" gcr.io/kpt-fn/set-labels:unstable '      configMap:
        app: web
    - image: gcr.io/kpt-fn/set-image:unstable
      configMap:
        name: nginx'
results_case results-failed-second-step "$tmp/res-two" 'set-image' <<'EOF'
items:
  - image: gcr.io/kpt-fn/set-labels:unstable
    exitCode: 0
    results:
      - message: set 2 labels in total
        severity: info
  - image: gcr.io/kpt-fn/set-image:unstable
    exitCode: 1
    stderr: 'Kptfile:10: pipeline.mutators[1] (set-image): invalid FunctionConfig: must specify one of `newName`, `newTag`, or `digest`'
    results:
      - message: must specify one of `newName`, `newTag`, or `digest`
        severity: error
      - message: 'function is terminated: must specify one of `newName`, `newTag`, or `digest`'
        severity: error
EOF
cp "$tmp/res/results.yaml" "$tmp/res-first"
env -i PATH=/usr/bin:/bin "$bin" render --results-dir "$tmp/res" "$tmp/res-two" >/dev/null 2>&1
if cmp -s "$tmp/res-first" "$tmp/res/results.yaml" && [ "$(ls -A "$tmp/res")" = results.yaml ]; then
  echo "PASS results-failed-step-deterministic-and-whole"
else
  echo "FAIL results-failed-step-deterministic-and-whole: $(ls -A "$tmp/res" | tr '\n' ' ')"
fi

# eval records the failure the same way (no config at all: v0.2+'s info)
mkdir -p "$tmp/res-eval"; cp "$tmp/res-sa/pod.yaml" "$tmp/res-eval/"
rm -rf "$tmp/res"
env -i PATH=/usr/bin:/bin "$bin" eval "$tmp/res-eval" --fn gcr.io/kpt-fn/set-labels:unstable --results-dir "$tmp/res" \
  >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(sed -n '/^    results:/,$p' "$tmp/res/results.yaml")" = "    results:
      - message: '\`FunctionConfig\` is not given'
        severity: info" ]; then
  echo "PASS results-eval-failed-step"
else
  echo "FAIL results-eval-failed-step: exit $rc, $(cat "$tmp/err") $(cat "$tmp/res/results.yaml" 2>/dev/null)"
fi

# No secret reaches results.yaml: a failed apply-setters step's error names the value as its stderr line does,
# redacted when the setter or the value looks secret.
rm -rf "$tmp/res-sec"; mkdir -p "$tmp/res-sec"
cat >"$tmp/res-sec/Kptfile" <<'EOF'
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: p
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/apply-setters:v0.2.0
      configMap:
        db-password: hunter2-Xq9vZ7kLm3
EOF
cat >"$tmp/res-sec/cm.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  keys: # kpt-set: ${db-password}
    - a
EOF
rm -rf "$tmp/res"
env -i PATH=/usr/bin:/bin "$bin" render --results-dir "$tmp/res" "$tmp/res-sec" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'severity: error' "$tmp/res/results.yaml" && grep -q '<redacted>' "$tmp/res/results.yaml" &&
   ! grep -q hunter2 "$tmp/res/results.yaml" "$tmp/err"; then
  echo "PASS results-failed-step-no-secret"
else
  echo "FAIL results-failed-step-no-secret: exit $rc, $(cat "$tmp/err") $(cat "$tmp/res/results.yaml" 2>/dev/null)"
fi
