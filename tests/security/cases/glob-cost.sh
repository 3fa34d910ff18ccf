# Attack: burn the render's CPU budget with a path glob (.krmignore patterns, search-replace's by-file-path). The
# matchers backtrack or rescan: a memo of (pattern, path) pairs kept search-replace's doublestar glob from going
# exponential, but only under a size cap, and not from p x s^2 work: "**a" a thousand times against the paths of a
# chain of 1,000 directories took the whole 45 s budget. .krmignore is matched as kpt matches it (Go's
# filepath.Match on a path's last parts), where a piece after a star is tried at every position of a part and read
# to its end each time (Go checks the whole pattern is well formed): a 60 KB "*aaa...b" line against 200-byte
# directory names costs 12 million steps a directory. Every rule is matched against every path, so no per-match
# bound would do either.
# Defence: every glob match of the run shares one step budget (CMP_MAX_GLOB_STEPS, 100,000,000 by default, a
# fraction of a second); running out is an error naming the file and the path, or the step and the pattern. A
# .krmignore line of 64 KiB or more is refused outright: kpt stops reading the file there.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app TIMEOUT=20"
chain=$(printf 'a/%.0s' $(seq 1 1000))
stars=$(printf '**a%.0s' $(seq 1 1000))
long=$(printf 'a%.0s' $(seq 1 200))
deep=$(for i in $(seq 1 19); do printf '%s/' "$long"; done)

newpkg
mkdir -p "$pkg/$deep"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n' >"$pkg/${deep}cm.yaml"
{ printf '*'; head -c 60000 /dev/zero | tr '\0' a; printf 'b\n'; } >"$pkg/.krmignore"
CASE_ENV=$argo check glob-cost-krmignore-long-piece 1 \
  '^cmp-generate: \.krmignore: read: its patterns took over 100000000 steps to match against the package.s paths, at "a+\.\.\." \(raise it with CMP_MAX_GLOB_STEPS\)$'

newpkg
mkdir -p "$pkg/$deep"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n' >"$pkg/${deep}$(printf 'a%.0s' $(seq 1 60)).yaml"
{ printf '*a%.0s' $(seq 1 80000); printf '*b\n'; } >"$pkg/.krmignore"
CASE_ENV=$argo check glob-cost-krmignore-long-line 1 \
  '^cmp-generate: \.krmignore:1: read: the line is 160002 bytes long; kpt reads \.krmignore lines of up to 65535 bytes'

# the same pattern as search-replace's by-file-path, against an object in the deep chain
newpkg
mkdir -p "$pkg/$chain"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  k: v\n' >"$pkg/${chain}cm.yaml"
printf 'pipeline:\n  mutators:\n    - image: search-replace:v0.2.0\n      configMap:\n        by-file-path: "%s**b"\n        by-value: v\n        put-value: w\n' \
  "$stars" >>"$pkg/Kptfile"
CASE_ENV=$argo check glob-cost-by-file-path 1 \
  '^cmp-generate: Kptfile:[0-9]+: .*search-replace.*: by-file-path "\*\*a\*\*a.*\.\.\." took over 100000000 steps to match against the files. paths \(raise it with CMP_MAX_GLOB_STEPS\)$'

# an ordinary .krmignore in the same deep tree is untouched by the budget
newpkg
mkdir -p "$pkg/$chain"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n' >"$pkg/${chain}cm.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n' >"$pkg/${chain}skip.yaml"
printf '**/skip.yaml\n*.tmp\n/a/**/b/\n' >"$pkg/.krmignore"
CASE_ENV=$argo check glob-cost-ordinary-patterns 0 '^  name: deep$'
if grep -q 'name: ignored' "$out"; then echo "FAIL glob-cost-ordinary-patterns-applied: skip.yaml was read"
else echo "PASS glob-cost-ordinary-patterns-applied"; fi
