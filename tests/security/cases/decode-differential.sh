# Attack: make kustomize or helm read a file differently from the way cmp-generate checked it. They decode
# kustomizations, generator configs and chart files with sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) and encoding/json,
# which matches keys to fields ignoring case, Unicode folding included ("Resources", "reſources": U+017F long s),
# lets the last of two keys for one field win, base64-decodes "!!binary" text, merges "<<" keys after the explicit
# ones, and ends lines at NEL, LS and PS; helm then drops non-printable characters from a dependency's repository.
# Whatever our reading of a path field checked, the tool would open another.
# Rule (src/decode): a tool only ever reads what we checked. Folded keys, duplicates after folding, tags, merge keys,
# those line breaks and (for helm's dependencies) non-ASCII text are refused in every kustomization, generator
# config and chart file, before any field is looked at; keys of data maps (labels, annotations, values) are data.
# Each attack is first shown to work with the real tool alone; the struct tables are checked against the real tools.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_NAMESPACE=shop ARGOCD_APP_SOURCE_PATH=app"
none="CMP_KUSTOMIZE_LOAD_RESTRICTOR=LoadRestrictionsNone"
ls=$'\xe2\x80\xa8' nel=$'\xc2\x85' long_s=$'\xc5\xbf' kelvin=$'\xe2\x84\xaa' zwsp=$'\xe2\x80\x8b'

# The package at $tmp/repo/app with a kustomize-build step over ov/ (extra configMap lines as arguments), and the
# neighbour's repository next to it with a secret, a kustomization of it, a password file and a patch.
kpkg() {
  newpkg
  { printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n'
    printf '    - image: kustomize-build\n      configMap:\n        path: ov\n'
    for l in "$@"; do printf '        %s\n' "$l"; done; } >"$pkg/Kptfile"
  mkdir -p "$pkg/ov" "$tmp/other-app"
  printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: TOPSECRET-KUST\n' >"$tmp/other-app/secret.yaml"
  printf 'resources:\n  - secret.yaml\n' >"$tmp/other-app/kustomization.yaml"
  printf 'TOPSECRET-KUST\n' >"$tmp/other-app/password.txt"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\ndata:\n  x: TOPSECRET-KUST\n' >"$tmp/other-app/patch.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/ov/mine.yaml"
}
kust() { printf '%s' "$1" >"$pkg/ov/kustomization.yaml"; }
raw() { (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp" timeout 60 \
  kubectl kustomize ov "$@") >"$tmp/raw.out" 2>&1; }
result() { if [ "$2" = yes ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
is_real() { grep -q "${2:-TOPSECRET-KUST}" "$tmp/raw.out" && result "$1" yes ||
  result "$1" no "kubectl kustomize did not read it: $(head -c 300 "$tmp/raw.out")"; }
refused='is refused: kustomize reads it as the field'

# 1. a folded top-level key: kustomize reads "Resources" as resources, the walk saw no resources at all
kpkg; kust $'Resources:\n  - ../../../other-app\n'
raw; is_real decode-folded-key-is-real
CASE_ENV="$argo" check decode-folded-key 1 \
  "ov/kustomization\\.yaml:1: .*: \"Resources\" $refused \"resources\" \\(keys are matched ignoring case\\); write \"resources\""
kust $'RESOURCES:\n  - ../../../other-app\n'
CASE_ENV="$argo" check decode-folded-key-upper-case 1 "ov/kustomization\\.yaml:1: .*\"RESOURCES\" $refused \"resources\""
# U+017F (long s) folds to s, U+212A (Kelvin sign) to k
kust "re${long_s}ources:"$'\n  - ../../../other-app\n'
raw; is_real decode-folded-long-s-is-real
CASE_ENV="$argo" check decode-folded-long-s 1 "\"re${long_s}ources\" $refused \"resources\" .*U\\+017F, read as s"
kust $'resources: [mine.yaml]\n'"${kelvin}ind: Bogus"$'\n'
raw; is_real decode-folded-kelvin-is-real 'kind should be Kustomization or Component'
CASE_ENV="$argo" check decode-folded-kelvin 1 \
  "ov/kustomization\\.yaml:2: .*\"${kelvin}ind\" $refused \"kind\" .*U\\+212A \\(Kelvin sign\\), read as k"

# 2. two keys for one field: the walk checks the exact one, kustomize takes the one whose key sorts last
#    (sigs.k8s.io/yaml goes through a Go map, which encoding/json writes out sorted: "reſources" after "resources")
kust $'resources:\n  - mine.yaml\n'"re${long_s}ources:"$'\n  - ../../../other-app\n'
raw; is_real decode-duplicate-after-folding-is-real
CASE_ENV="$argo" check decode-duplicate-after-folding 1 \
  "ov/kustomization\\.yaml:3: .*\"re${long_s}ources\" $refused \"resources\" .*which \"resources\" on line 1 sets too"
kust $'resources:\n  - mine.yaml\nRESOURCES:\n  - ../../../other-app\n'
CASE_ENV="$argo" check decode-duplicate-after-folding-upper-case 1 \
  'ov/kustomization\.yaml:3: .*"RESOURCES" '"$refused"' "resources" .*which "resources" on line 1 sets too'

# 3. folded keys below the top: a generator's files, a patch's path (with the operator's LoadRestrictionsNone the
#    walk is what keeps files in the repository)
kust $'resources: [mine.yaml]\nconfigMapGenerator:\n  - name: x\n    Files:\n      - ../../../other-app/password.txt\n'
raw --load-restrictor LoadRestrictionsNone; is_real decode-folded-generator-files-is-real
CASE_ENV="$argo $none" check decode-folded-generator-files 1 \
  "ov/kustomization\\.yaml:4: .*configMapGenerator\\[0\\]: \"Files\" $refused \"files\""
kust $'resources: [mine.yaml]\npatches:\n  - Path: ../../../other-app/patch.yaml\n'
raw --load-restrictor LoadRestrictionsNone; is_real decode-folded-patch-path-is-real
CASE_ENV="$argo $none" check decode-folded-patch-path 1 "ov/kustomization\\.yaml:3: .*patches\\[0\\]: \"Path\" $refused \"path\""

# 4. generator and transformer configs: a config file and an inline config
printf 'apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\nPath: ../../../other-app/patch.yaml\n' >"$pkg/ov/transformer.yaml"
kust $'resources: [mine.yaml]\ntransformers:\n  - transformer.yaml\n'
raw --load-restrictor LoadRestrictionsNone; is_real decode-folded-config-file-is-real
CASE_ENV="$argo $none" check decode-folded-config-file 1 "ov/transformer\\.yaml:5: .*PatchTransformer: \"Path\" $refused \"path\""
kust $'generators:\n  - |-\n    apiVersion: builtin\n    kind: ConfigMapGenerator\n    metadata:\n      name: x\n    fileS:\n      - ../../../other-app/password.txt\n'
raw --load-restrictor LoadRestrictionsNone; is_real decode-folded-inline-config-is-real
CASE_ENV="$argo $none" check decode-folded-inline-config 1 \
  "ov/kustomization\\.yaml:3: .*generators\\[0\\] \\(ConfigMapGenerator\\): \"fileS\" $refused \"files\""

# 4b. a number where a config's path goes (found by an attacker's review): sigs.k8s.io/yaml hands a YAML 1.1 number
#     bound for a Go string to encoding/json as Go's text for it, so "path: 1e3" (also 0x3e8, 1_000, +1000, 01750,
#     1000.0) opens the file "1000", here a link to the neighbour's patch, while the walk checked the harmless "1e3"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/ov/1e3"
ln -sfn ../../../other-app/patch.yaml "$pkg/ov/1000"
printf 'apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: 1e3\n' >"$pkg/ov/transformer.yaml"
kust $'resources: [mine.yaml]\ntransformers:\n  - transformer.yaml\n'
raw --load-restrictor LoadRestrictionsNone; is_real decode-number-path-is-real
CASE_ENV="$argo $none" check decode-number-path 1 \
  'ov/transformer\.yaml:5: .*PatchTransformer path: "1e3" is refused: kustomize reads it \(YAML 1\.1\) as a number .*quote it'
not_shown() { grep -q TOPSECRET-KUST "$out" "$err" && result "$1" no "the neighbour's content came out" || result "$1" yes; }
not_shown decode-number-path-content-never-shown
printf 'apiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata:\n  name: p\npaths:\n  - 0x3e8\n' >"$pkg/ov/transformer.yaml"
raw --load-restrictor LoadRestrictionsNone; is_real decode-number-paths-item-is-real
CASE_ENV="$argo $none" check decode-number-paths-item 1 \
  'ov/transformer\.yaml:6: .*paths\[0\]: "0x3e8" is refused: kustomize reads it \(YAML 1\.1\) as a number'
printf "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: '1e3'\n" >"$pkg/ov/transformer.yaml"
CASE_ENV="$argo $none" check decode-number-path-quoted-renders 0 'name: mine'
rm -f "$pkg/ov/1e3" "$pkg/ov/1000"

# 5. a "!!binary" path: the walk checks its text (a decoy directory of that name), kustomize opens the decoded path
b64=$(printf '../../../other-app' | base64)
mkdir -p "$pkg/ov/$b64"; printf 'resources: []\n' >"$pkg/ov/$b64/kustomization.yaml"
kust "resources:"$'\n'"  - !!binary $b64"$'\n'
raw; is_real decode-binary-tag-is-real
CASE_ENV="$argo" check decode-binary-tag 1 \
  'ov/kustomization\.yaml:2: .*resources\[0\]: the tag "!!binary" is refused: kustomize decodes tagged values'
rm -rf "$pkg/ov/$b64"
kust $'resources:\n  - !!str mine.yaml\n'
CASE_ENV="$argo" check decode-any-tag 1 'resources\[0\]: the tag "!!str" is refused'

# 6. a merge key after the explicit field: go-yaml lets the merged value win, our loader the explicit one
kust $'resources: [mine.yaml]\n<<: {resources: [../../../other-app]}\n'
raw; is_real decode-merge-key-is-real
CASE_ENV="$argo" check decode-merge-key 1 'ov/kustomization\.yaml:2: .*the merge key "<<" is refused: kustomize merges it'

# 7. YAML 1.1 line breaks: the rest of a comment is a new line for kustomize
kust "resources: [mine.yaml]  # ${nel}resources: [../../../other-app]"$'\n'
raw; is_real decode-next-line-is-real
CASE_ENV="$argo" check decode-next-line 1 'ov/kustomization\.yaml:1: .*the character U\+0085 \(next line\) is refused'
kust $'resources:\n- mine.yaml\n# '"${ls}"$'- ../../../other-app\n'
raw; is_real decode-line-separator-is-real
CASE_ENV="$argo" check decode-line-separator 1 'ov/kustomization\.yaml:3: .*the character U\+2028 \(line separator\) is refused'

# 8. folded helm fields: "ReleaseName" reaches helm as a flag, around the release-name rule
marker=$tmp/PWNED
mkdir -p "$pkg/ov/charts/c/templates"
printf 'apiVersion: v2\nname: c\nversion: 0.1.0\n' >"$pkg/ov/charts/c/Chart.yaml"; : >"$pkg/ov/charts/c/values.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: $(touch %s)\n' "$marker" >"$pkg/ov/charts/c/templates/cm.yaml"
kust $'helmCharts:\n  - name: c\n    ReleaseName: --post-renderer=/bin/sh\n'
rm -f "$marker"; raw --enable-helm --helm-command "$tools/helm"
[ -e "$marker" ] && result decode-folded-helm-release-name-is-real yes ||
  result decode-folded-helm-release-name-is-real no "the post-renderer did not run: $(head -c 300 "$tmp/raw.out")"
rm -f "$marker"
CASE_ENV="$argo CMP_KUSTOMIZE_ENABLE_HELM=true" check decode-folded-helm-release-name 1 \
  "ov/kustomization\\.yaml:3: .*helmCharts\\[0\\]: \"ReleaseName\" $refused \"releaseName\""
[ -e "$marker" ] && echo "FAIL decode-folded-helm-release-name: the post-renderer ran"

# 8b. nesting as deep as the operator allows (CMP_MAX_DEPTH=100000) is walked to the bottom without a crash: the
#     checks keep their way down on the heap, not on the C stack
kpkg
{ printf 'resources: [mine.yaml]\nx: '; printf '%.0s[' $(seq 99990); printf '!!str deepest'; printf '%.0s]' $(seq 99990); echo; } \
  >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_MAX_DEPTH=100000" check decode-deep-nesting 1 \
  'ov/kustomization\.yaml:2: .*: x(\[0\]){7}\.\.\.\(99975 levels\)\.\.\.(\[0\]){8}: the tag "!!str" is refused'

# 9. legitimate: exact spellings render, and keys of data maps are data (a label key may be "App" or "Resources")
kpkg
kust $'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - mine.yaml\ncommonLabels:\n  App: web\n  Resources: "many"\ncommonAnnotations:\n  Owner: team-a\nconfigMapGenerator:\n  - name: settings\n    literals: [LEVEL=debug]\n    options:\n      labels:\n        Tier: Front\npatches:\n  - target: {kind: ConfigMap, name: mine}\n    patch: |-\n      - op: add\n        path: /data\n        value: {Key: "v"}\n'
CASE_ENV="$argo" check decode-ordinary-overlay-renders 0 '^    Resources: many$'
grep -q '^  Key: v$' "$out" && grep -q '^    Tier: Front$' "$out" && grep -q '^    Owner: team-a$' "$out" &&
  result decode-ordinary-overlay-renders-data-keys yes || result decode-ordinary-overlay-renders-data-keys no "$(head -c 300 "$out")"

# 10. the tables are kustomize v5.4.2's own: every field of every struct level of the Kustomization, set to null,
#     decodes without "unknown field" (kustomize refuses names it does not know) while a made-up name after them is
#     one; every field of each plugin struct, given a value of the wrong type, fails naming that Go field
cc -std=c11 -O1 -I"$root/src" -o "$tmp/go-fields" "$here/go-fields.c" "$root/src/decode/kustomize_types.c" \
  "$root/src/decode/helm_types.c" 2>"$tmp/cc.err" || echo "FAIL decode-tables-build: $(head -c 300 "$tmp/cc.err")"
wrap() { # PATH MAP: flow YAML putting MAP at PATH ("." the top, "patches[].target")
  local inner=$2 segs i; [ "$1" = . ] && { printf '%s' "$inner"; return; }
  IFS=. read -ra segs <<<"$1"
  for ((i = ${#segs[@]} - 1; i >= 0; i--)); do
    case ${segs[i]} in *'[]') inner="{${segs[i]%[]}: [$inner]}";; *) inner="{${segs[i]}: $inner}";; esac
  done; printf '%s' "$inner"
}
kpkg; bad=
levels=$("$tmp/go-fields" kustomization | awk -F'\t' '{f[$2] = f[$2] $3 ": null, "} END {for (p in f) print p "\t" f[p]}')
while IFS=$'\t' read -r path fields; do
  kust "$(wrap "$path" "{${fields}zzzNotAField: null}")"; raw
  grep -q 'unknown field "zzzNotAField"' "$tmp/raw.out" || bad+=" [$path: $(head -c 200 "$tmp/raw.out")]"
done <<<"$levels"
[ "$(wc -l <<<"$levels")" -ge 20 ] || bad+=" [only $(wc -l <<<"$levels") levels listed]"
[ -z "$bad" ] && result decode-kustomization-table-is-kustomize yes || result decode-kustomization-table-is-kustomize no "$bad"
bad=; n=0
while IFS=$'\t' read -r kind _ field k; do
  case $kind in *Generator) list=generators;; *) list=transformers;; esac
  case $k in S) v='[[[1]]]';; *) v=7;; esac
  meta='metadata: {name: x}' want="Go struct field ${kind}Plugin.$field "
  if [ "$field" = metadata ]; then meta='metadata: {name: x, annotations: {a: [[[1]]]}}' want='Go struct field [A-Za-z]*\.metadata\.annotations '
  else meta="$meta"$'\n'"    $field: $v"; fi
  kust "$list:"$'\n'"  - |-"$'\n'"    apiVersion: builtin"$'\n'"    kind: $kind"$'\n'"    $meta"$'\n'
  raw --enable-helm; n=$((n + 1))
  grep -q "$want" "$tmp/raw.out" || bad+=" [$kind.$field: $(head -c 200 "$tmp/raw.out")]"
done < <("$tmp/go-fields" plugins)
[ "$n" -ge 40 ] || bad+=" [only $n plugin fields listed]"
[ -z "$bad" ] && result decode-plugin-tables-are-kustomize yes || result decode-plugin-tables-are-kustomize no "$bad"

# ---- helm: Chart.yaml, Chart.lock, requirements.yaml (render-helm-chart, which builds file:// dependencies) ----
. "$here/helm-lib.sh"
mkchart "$tmp/other/lib" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other-tenant\ndata:\n  x: %s' "$secret")"
# the attacker's preparation, and what helm alone does with it: build the dependencies, render
# (on a copy of the repository at the same depth: helm writes charts/ and a Chart.lock)
rawhelm() { rm -rf "$tmp/rawrepo"; cp -a "$tmp/repo" "$tmp/rawrepo"
  (cd "$tmp/rawrepo/${1#"$tmp/repo/"}" && helmx dependency build . && helmx template x .) >"$tmp/raw.out" 2>&1; }
real() { grep -q "$secret" "$tmp/raw.out" && result "$1" yes || result "$1" no "helm did not read it: $(head -c 300 "$tmp/raw.out")"; }

# 11. "dependencieſ" in Chart.yaml after "dependencies": the walk checks the dependency inside the repository (and
#     builds, as charts/ lacks it), helm builds and renders the last list, the chart outside
newpkg; mkchart "$pkg/charts/app"; mkchart "$pkg/charts/lib"
printf "dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../lib\ndependencie${long_s}:\n  - name: lib\n    version: 0.1.0\n    repository: file://../../../../other/lib\n" >>"$pkg/charts/app/Chart.yaml"
rawhelm "$pkg/charts/app"; real decode-chart-folded-dependencies-is-real
step 'name: app'
check decode-chart-folded-dependencies 1 \
  "app/charts/app/Chart\\.yaml:8: .*\"dependencie${long_s}\" is refused: helm reads it as the field \"dependencies\" .*which \"dependencies\" on line 4 sets too"
leaked && echo "FAIL decode-chart-folded-dependencies: the chart outside the repository reached the output"

# 12. a folded field of a dependency: "repoſitory" sorts after "repository" and wins
newpkg; mkchart "$pkg/charts/app"; mkchart "$pkg/charts/lib"
printf "dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../lib\n    repo${long_s}itory: file://../../../../other/lib\n" >>"$pkg/charts/app/Chart.yaml"
rawhelm "$pkg/charts/app"; real decode-chart-folded-repository-is-real
step 'name: app'
check decode-chart-folded-repository 1 \
  "app/charts/app/Chart\\.yaml:8: .*dependencies\\[0\\]: \"repo${long_s}itory\" is refused: helm reads it as the field \"repository\" .*which \"repository\" on line 7 sets too"
leaked && echo "FAIL decode-chart-folded-repository: the chart outside the repository reached the output"

# 13. Chart.lock: with a lock, helm builds what the lock lists; the digest covers Chart.yaml's and the lock's lists
newpkg; mkchart "$pkg/charts/app"; mkchart "$pkg/charts/lib"
printf 'dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../lib\n' >>"$pkg/charts/app/Chart.yaml"
digest=$(printf '[[{"name":"lib","version":"0.1.0","repository":"file://../lib"}],[{"name":"lib","version":"0.1.0","repository":"file://../../../../other/lib"}]]' | sha256sum | cut -d' ' -f1)
printf "dependencies:\n- name: lib\n  repository: file://../lib\n  version: 0.1.0\ndependencie${long_s}:\n- name: lib\n  repository: file://../../../../other/lib\n  version: 0.1.0\ndigest: sha256:%s\ngenerated: \"2024-01-01T00:00:00Z\"\n" \
  "$digest" >"$pkg/charts/app/Chart.lock"
rawhelm "$pkg/charts/app"; real decode-chart-lock-folded-dependencies-is-real
step 'name: app'
check decode-chart-lock-folded-dependencies 1 \
  "app/charts/app/Chart\\.lock:5: .*\"dependencie${long_s}\" is refused: helm reads it as the field \"dependencies\""

# 14. requirements.yaml (helm reads it over Chart.yaml's Metadata, whatever the chart's apiVersion)
newpkg; mkchart "$pkg/charts/app"; mkchart "$pkg/charts/lib"
printf "dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../lib\ndependencie${long_s}:\n  - name: lib\n    version: 0.1.0\n    repository: file://../../../../other/lib\n" >"$pkg/charts/app/requirements.yaml"
rawhelm "$pkg/charts/app"; real decode-chart-requirements-is-real
step 'name: app'
check decode-chart-requirements 1 "app/charts/app/requirements\\.yaml:5: .*\"dependencie${long_s}\" is refused"

# 15. a zero-width space in the repository: a directory ".<U+200B>." to the walk, ".." once helm sanitized it
newpkg; mkchart "$pkg/charts/app"
printf 'dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: "file://.%s./.%s./.%s./.%s./other/lib"\n' \
  "$zwsp" "$zwsp" "$zwsp" "$zwsp" >>"$pkg/charts/app/Chart.yaml"
rawhelm "$pkg/charts/app"; real decode-chart-sanitized-repository-is-real
step 'name: app'
check decode-chart-sanitized-repository 1 \
  'app/charts/app/Chart\.yaml:7: .*dependencies\[0\]\.repository: ".*" is refused: it holds U\+200B, and helm drops or rewrites control, space and non-ASCII'
leaked && echo "FAIL decode-chart-sanitized-repository: the chart outside the repository reached the output"

# 16. legitimate: a chart with a file:// dependency inside the repository, capitalised annotation keys, a lock
newpkg; mkchart "$pkg/charts/lib"
mkchart "$pkg/charts/app" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-cm')"
printf 'annotations:\n  Category: Web\ndependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../lib\n' >>"$pkg/charts/app/Chart.yaml"
(cd "$pkg/charts/app" && helmx dependency update . >/dev/null 2>&1); rm -rf "$pkg/charts/app/charts"
step 'name: app'
check decode-ordinary-chart-renders 0 '^  name: app-cm$'

# 17. the tables are helm v3.17's own: each field given a value of the wrong type makes helm fail to load the
#     file (a name helm does not know is ignored, as a made-up one shows)
bad=; n=0
while IFS=$'\t' read -r root path field k; do
  rm -rf "$tmp/hc"; mkchart "$tmp/hc"
  case $k in S) v='[[[1]]]';; *) v=7;; esac
  case "$root:$path" in
    Chart.yaml:.) printf 'apiVersion: v2\nname: hc\nversion: 0.1.0\n' | grep -v "^$field:" >"$tmp/hc/Chart.yaml"
                  printf '%s: %s\n' "$field" "$v" >>"$tmp/hc/Chart.yaml";;
    Chart.yaml:*) printf '%s:\n- %s: %s\n' "${path%[]}" "$field" "$v" >>"$tmp/hc/Chart.yaml";;
    Chart.lock:.) printf '%s: %s\n' "$field" "$v" >"$tmp/hc/Chart.lock";;
  esac
  helmx template x "$tmp/hc" >"$tmp/raw.out" 2>&1; n=$((n + 1))
  grep -q "cannot load $root" "$tmp/raw.out" || bad+=" [$root $path $field: $(head -c 200 "$tmp/raw.out")]"
done < <("$tmp/go-fields" helm)
rm -rf "$tmp/hc"; mkchart "$tmp/hc"; printf 'dependencies:\n- name: hc\n  zzz-not-a-field: 7\n' >>"$tmp/hc/Chart.yaml"
helmx template x "$tmp/hc" >"$tmp/raw.out" 2>&1; grep -q 'cannot load' "$tmp/raw.out" && bad+=" [a made-up name failed the load]"
[ "$n" -ge 25 ] || bad+=" [only $n fields listed]"
[ -z "$bad" ] && result decode-helm-tables-are-helm yes || result decode-helm-tables-are-helm no "$bad"
