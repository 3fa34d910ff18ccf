# Attack: make the sidecar fetch URLs (internal services, cloud metadata) through kustomize, which fetches
# http(s) resources and patches itself and clones git URLs (https://host/org/repo//dir?ref=, github.com/org/repo,
# git@host:org/repo, ssh://, git::...), or read another repository on disk through git with file://.
# Rule: no URL unless the operator allows remote sources (CMP_ALLOW_REMOTE_SOURCES=true); file:// never. There is
# no network here: 127.0.0.1:1 refuses connections, so kustomize's own error shows that it tried to fetch.

argo="ARGOCD_APP_NAME=attack ARGOCD_APP_NAMESPACE=shop ARGOCD_APP_SOURCE_PATH=app"
url=http://127.0.0.1:1/internal.yaml
# every URL below points at 127.0.0.1:1 (nothing listens), except github.com's short form, which names its host

kpkg() {
  newpkg
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n    - image: kustomize-build\n      configMap:\n        path: ov\n' >"$pkg/Kptfile"
  mkdir -p "$pkg/ov"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/ov/mine.yaml"
}
raw() { (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp" GIT_TERMINAL_PROMPT=0 \
  timeout 60 kubectl kustomize ov "$@") >"$tmp/raw.out" 2>&1; }
result() { if [ "$2" = yes ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
refusal='is a remote source \(URL\); remote sources are off on this sidecar \(the operator allows them with CMP_ALLOW_REMOTE_SOURCES=true\)'

# 1. an http resource: kustomize fetches it
kpkg
printf 'resources:\n  - %s\n' "$url" >"$pkg/ov/kustomization.yaml"
raw; grep -q 'Get "http://127.0.0.1:1/internal.yaml".*connection refused' "$tmp/raw.out" &&
  result kustomize-remote-http-is-real yes || result kustomize-remote-http-is-real no "$(head -c 300 "$tmp/raw.out")"
CASE_ENV="$argo" check kustomize-remote-http 1 "ov/kustomization.yaml:2: .*resources\[0\]: \"http://127\.0\.0\.1:1/internal\.yaml\" $refusal"
grep -q 'connection refused' "$err" && result kustomize-remote-http-never-fetched no "kustomize tried the URL" ||
  result kustomize-remote-http-never-fetched yes

# 2. the git forms kustomize clones, as bases and components
for case in 'https|https://127.0.0.1:1/org/repo//deploy?ref=v1.0.0' 'github|github.com/org/repo/deploy?ref=v1.0.0' \
  'scp|git@127.0.0.1:org/repo.git/deploy' 'ssh|ssh://git@127.0.0.1:1/org/repo.git' 'git-prefix|git::http://127.0.0.1:1/org/repo.git'; do
  printf 'resources:\n  - mine.yaml\ncomponents:\n  - %s\n' "${case#*|}" >"$pkg/ov/kustomization.yaml"
  CASE_ENV="$argo" check "kustomize-remote-git-${case%%|*}" 1 "components\[0\]: \".*\" $refusal"
done
raw; grep -q "git fetch --depth=1 http://127.0.0.1:1/org/repo.git" "$tmp/raw.out" &&
  result kustomize-remote-git-is-real yes || result kustomize-remote-git-is-real no "$(head -c 300 "$tmp/raw.out")"

# 3. a URL in a field that names a file (kustomize loads any file path over http)
printf 'resources:\n  - mine.yaml\npatches:\n  - path: %s\n' "$url" >"$pkg/ov/kustomization.yaml"
raw; grep -q 'connection refused' "$tmp/raw.out" && result kustomize-remote-patch-is-real yes ||
  result kustomize-remote-patch-is-real no "$(head -c 300 "$tmp/raw.out")"
CASE_ENV="$argo" check kustomize-remote-patch 1 "patches\[0\]\.path: \"http://127\.0\.0\.1:1/internal\.yaml\" $refusal"
printf 'configMapGenerator:\n  - name: x\n    files:\n      - key=%s\n' "$url" >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo" check kustomize-remote-generator-file 1 "configMapGenerator\[0\]\.files\[0\]: \"http://.*\" $refusal"

# 4. file:// is a read of the disk outside the repository through git: refused even when the operator allows URLs
mkdir -p "$tmp/other-app"
printf 'resources:\n  - file://%s/other-app\n' "$tmp" >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-file-url 1 \
  'resources\[0\]: "file://.*" is a file:// URL: a read outside the repository, never allowed'

# 5. the operator allows remote sources: the refusal is lifted and kustomize's own fetch error comes back; URLs
#    whose parts git would read as options stay refused
printf 'resources:\n  - %s\n' "$url" >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-allowed-by-operator 1 \
  'kustomize build ov failed \(exit 1\): .*Get "http://127\.0\.0\.1:1/internal\.yaml".*connection refused'
printf 'resources:\n  - https://git.example.com/org/repo?ref=--upload-pack=touch\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-option-shaped 1 \
  'resources\[0\]: ".*" has a part that git would read as a command-line option'

# 6. ... and as git gets them: kustomize decodes the query (Go's url.ParseQuery: %XX, '+' for a space) and hands the
#    ref to git fetch as its last argument, so "%2D%2D" is "--" there; git decodes the repository URL itself. A fake
#    git on kustomize's PATH shows what reaches it.
mkdir -p "$tmp/fakegit"
printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]" "$a"; done >>"%s/git.log"; echo >>"%s/git.log"\n' "$tmp" "$tmp" >"$tmp/fakegit/git"
chmod +x "$tmp/fakegit/git"
printf 'resources:\n  - https://127.0.0.1:1/org/repo?ref=%%2D%%2Dupload-pack=touch%%20pwned\n' >"$pkg/ov/kustomization.yaml"
rm -f "$tmp/git.log"
(cd "$pkg" && env -i PATH="$tmp/fakegit:$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp" timeout 60 kubectl kustomize ov) >/dev/null 2>&1
grep -q '^\[fetch\]\[--depth=1\]\[https://127.0.0.1:1/org/repo\]\[--upload-pack=touch pwned\]$' "$tmp/git.log" 2>/dev/null &&
  result kustomize-remote-option-encoded-is-real yes || result kustomize-remote-option-encoded-is-real no "$(head -c 300 "$tmp/git.log" 2>&1)"
opt='has a part that git would read as a command-line option once decoded'
for case in 'ref|?ref=%2D%2Dupload-pack=touch%20pwned|"--upload-pack=touch pwned"' 'version|?version=%2d%2dupload-pack=x|"--upload-pack=x"' \
  'encoded-key|?%72ef=%2Dx|"-x"' 'second-ref|?ref=v1&ref=%2Dx|"-x"' 'plus|?ref=+--x|" --x"' 'nul|?ref=v1%00--x|"v1\\x00--x"'; do
  IFS='|' read -r name query shown <<<"$case"
  printf 'resources:\n  - https://127.0.0.1:1/org/repo%s\n' "$query" >"$pkg/ov/kustomization.yaml"
  CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check "kustomize-remote-option-encoded-$name" 1 "resources\[0\]: \".*\" $opt \($shown"
done
# a host that ssh would read as an option ("-oProxyCommand=..."), percent-encoded: git decodes it before ssh
printf 'resources:\n  - ssh://git@%%2DoProxyCommand=touch%%20pwned/org/repo.git\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-option-encoded-ssh-host 1 "resources\[0\]: \".*\" $opt"
# what does not decode cleanly: Go refuses it, and kustomize then fetches HEAD, ignoring the whole query
printf 'resources:\n  - https://127.0.0.1:1/org/repo?ref=v1%%zz\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-bad-escape 1 \
  "resources\[0\]: \".*\" has a '%' that does not start a two-digit hex escape in its query"
printf 'resources:\n  - https://127.0.0.1:1/org/%%2repo?ref=v1\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-bad-escape-repository 1 \
  "resources\[0\]: \".*\" has a '%' that does not start a two-digit hex escape"
printf 'resources:\n  - https://127.0.0.1:1/org/repo?ref=--x;a=b\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-semicolon 1 'resources\[0\]: ".*" has a part that git would read'
printf 'resources:\n  - https://127.0.0.1:1/org/repo?ref=v1;a=b\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-semicolon-drops-ref 1 \
  "resources\[0\]: \".*\" has a ';' in its query, which kustomize's URL parser refuses"
# an escape that decodes to something harmless passes the check and reaches kustomize (git fails: nothing listens)
printf 'resources:\n  - https://127.0.0.1:1/org/repo?ref=release%%2F1.0&timeout=5\n' >"$pkg/ov/kustomization.yaml"
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=true" check kustomize-remote-encoded-ref-allowed 1 'kustomize build ov failed'
CASE_ENV="$argo CMP_ALLOW_REMOTE_SOURCES=1" check kustomize-remote-operator-typo 1 \
  'CMP_ALLOW_REMOTE_SOURCES on the sidecar must be true or false'
