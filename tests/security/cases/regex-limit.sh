# Regexes the package author writes (search-replace's by-value-regex, apply-replacements' [k=v] field paths) that
# backtrack without end, or nest deeper than the depth limit, over values that may hold secrets. Running into
# pcre2's limits must be an error naming the field and the pattern (never "no match", which would leave a value
# the author meant to replace and exit 0), the value must not be echoed, and an operator can raise the limit.

secret='s3cr3t-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'

search_pkg() { # REGEX VALUE
  newpkg
  printf 'pipeline:\n  mutators:\n    - image: search-replace\n      configMap:\n        by-value-regex: %s\n        put-value: replaced\n' \
    "'$1'" >>"$pkg/Kptfile"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  token: %s\n' "$2" >"$pkg/cm.yaml"
}

noecho() { # NAME: the last run's stderr must not hold the value
  if grep -q 's3cr3t' "$err"; then echo "FAIL $1: the value was echoed: $(head -c 300 "$err")"; else echo "PASS $1"; fi
}

# catastrophic backtracking: (a+)+$ against a run of a's that ends in something else
search_pkg '(a+)+$' "$secret"
check regex-limit-search-replace-match-limit 1 \
  'Kptfile:[0-9]+: .*search-replace.*by-value-regex "\(a\+\)\+\$" hit the regex match limit \(1000000 steps; raise it with CMP_MAX_REGEX_STEPS\) on the value of data\.token in ConfigMap/cm'
noecho regex-limit-search-replace-value-not-echoed

# a pattern that keeps one backtracking point per character, over a long value: the depth limit, even though it
# would match in the end
long=$(head -c 300000 /dev/zero | tr '\0' 'a')
search_pkg '^(a|b)*$' "$long"
check regex-limit-search-replace-depth-limit 1 'by-value-regex "\^\(a\|b\)\*\$" hit the regex depth limit \(100000 nested'
# the operator can raise it, and the memory budget with it: pcre2's backtracking frames for 300,000 nested points
# count against CMP_MAX_MEMORY_MB (more than the default 192 MB)
CASE_ENV="CMP_MAX_REGEX_STEPS=100000000 CMP_MAX_MEMORY_MB=1024" check regex-limit-raised-by-operator 0 'token: replaced'
CASE_ENV="CMP_MAX_REGEX_STEPS=100000000 CMP_MAX_MEMORY_MB=64" check regex-limit-frames-count-against-the-budget 1 \
  'search-replace\): the render needs more than 64 MB of memory \(CMP_MAX_MEMORY_MB=64'
noecho regex-limit-frames-not-echoed

# an ordinary pattern over the same long value still works, groups and all
search_pkg '^(a+)$' "$long"
check regex-limit-ordinary-pattern-unaffected 0 'token: replaced'

# apply-replacements: the [name=...] of a target field path is a regex over list items
newpkg
cat >>"$pkg/Kptfile" <<'YAML'
pipeline:
  mutators:
    - image: apply-replacements
      configPath: r.yaml
YAML
cat >"$pkg/r.yaml" <<'YAML'
apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: r
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
  - source:
      kind: ConfigMap
      name: src
      fieldPath: data.v
    targets:
      - select:
          kind: Deployment
        fieldPaths:
          - spec.template.spec.containers.[name=(a+)+$].image
YAML
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\ndata:\n  v: nginx\n' >"$pkg/src.yaml"
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n        - name: %s\n          image: old\n' \
  "$secret" >"$pkg/d.yaml"
check regex-limit-apply-replacements-match-limit 1 \
  'd\.yaml.*apply-replacements.*targets\[0\]: field path `spec\.template\.spec\.containers\.\[name=\(a\+\)\+\$\]\.image`: the pattern `\(a\+\)\+\$` in \[name=\(a\+\)\+\$\] hit the regex match limit .* on the field `name` of item 0'
noecho regex-limit-apply-replacements-value-not-echoed
